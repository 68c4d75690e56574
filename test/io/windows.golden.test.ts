/**
 * Windowed reads equal xarray's values for the same windows (golden files from
 * scripts/goldens/make_io_goldens.py): fill values are nodata, scale/offset applied,
 * rows north-up whatever the file's latitude order.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Cube } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import { GOLDEN_FILES, expectedDimName, loadInfo, loadWindows } from "../helpers/golden.js";

describe("windowed reads against xarray", () => {
  for (const [stem, path] of GOLDEN_FILES) {
    it(stem, async () => {
      const info = loadInfo(stem);
      const cube: Cube = await openCube(path);
      try {
        for (const w of loadWindows(stem)) {
          const v = cube.variables.find((x) => x.name === w.variable)!;
          assert.ok(v, `variable ${w.variable}`);
          const dims = Object.keys(w.index).map((d) => {
            assert.equal(v.dimensions[Object.keys(w.index).indexOf(d)].name, expectedDimName(info, w.variable, d));
            return w.index[d];
          });
          const slab = await v.read({
            dims,
            window: { y: w.rows[0], x: w.cols[0], height: w.rows[1] - w.rows[0], width: w.cols[1] - w.cols[0] },
          });
          const where = `${stem} ${w.variable} ${JSON.stringify(w.index)} rows ${w.rows} cols ${w.cols}`;
          assert.deepEqual(slab.shape, w.shape, where);
          assert.equal(slab.data.length, w.values.length, where);
          w.values.forEach((expected, i) => {
            const got = slab.data[i];
            const isNodata = Number.isNaN(got) || got === v.nodata;
            if (expected === null) {
              assert.ok(isNodata, `${where} [${i}]: expected nodata, got ${got}`);
            } else {
              assert.ok(!isNodata, `${where} [${i}]: expected ${expected}, got nodata`);
              assert.equal(got, expected, `${where} [${i}]`);
            }
          });
        }
      } finally {
        await cube.close();
      }
    });
  }
});
