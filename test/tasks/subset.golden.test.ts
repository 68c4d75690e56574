/**
 * SubsetMultidimensionalRaster end to end against xarray: each golden case of
 * test/golden/subset/cases.json is parsed by the task's real parser, written with
 * writeSubset to a Zarr store, and the store is opened again with openCube. The variables,
 * kept dimension values, sample values (float32 exact, null = nodata), the grid of extent
 * cases and the root attribute `strata:statistics` (min/max/count exact, mean to 1e-6
 * relative) must equal what xarray/numpy compute for the same selection.
 *
 * Goldens, from the repository root:
 *   bash scripts/fixtures.sh && /tmp/v/bin/python scripts/goldens/make_subset_goldens.py
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";

import type { Statistics } from "../../src/analysis/statistics.js";
import type { Cube } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import { type SubsetOptions, subsetTask, writeSubset } from "../../src/tasks/subset.js";
import { applyContext } from "../../src/tasks/context.js";
import { CASES, REAL, fixtureEnv, plain } from "../helpers/subsetCases.js";

/**
 * The cases written end to end: every kind of definition, a variables subset, both extent
 * CRSs and the edge-aligned extent (all 18 take ~10 s; these ~4 s). The others are checked
 * by test/tasks/selection.test.ts, which runs the same parser without writing.
 */
const WRITTEN = [
  "variables_comma_coads",
  "value_instant_offset_epoch_navy",
  "value_month_january_navy",
  "value_zlist_ocean",
  "ranges_time_and_z_ocean",
  "ranges_disjoint_navy",
  "iteration_6months_navy",
  "iteration_z_ocean",
  "extent_4326_navy",
  "extent_3857_january_navy",
  "extent_edges_iteration_z_ocean",
];

describe("Subset output against xarray (golden cases written to Zarr)", () => {
  let dir = "";
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "strata-subset-golden-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("every written case exists in the goldens", () => {
    for (const name of WRITTEN)
      assert.ok(
        CASES.some((c) => c.name === name),
        name,
      );
  });

  for (const c of CASES.filter((x) => WRITTEN.includes(x.name))) {
    it(c.name, async () => {
      const { options } = await subsetTask.parse(
        { inputMultidimensionalRaster: JSON.stringify({ uri: c.file }), outputName: '{"serviceProperties":{"name":"x"}}', ...c.params },
        fixtureEnv,
      );
      const path = join(dir, `${c.name}.zarr`);
      const source = await openCube(REAL + c.file);
      let returned: Map<string, Statistics | undefined>;
      try {
        // Through JSON, as the options travel to the worker.
        const plan = JSON.parse(JSON.stringify(options)) as SubsetOptions;
        // The window is of the input as the context presents it (an extent across the seam renumbers its columns).
        returned = await writeSubset(applyContext(source, plan).cube, { ...plan, tile: 512 }, path);
      } finally {
        await source.close();
      }

      const out: Cube = await openCube(path);
      try {
        const e = c.expected;
        assert.deepEqual(
          out.variables.map((v) => v.name),
          e.variables,
          "variables",
        );
        for (const v of out.variables) {
          assert.deepEqual(
            v.dimensions.map((d) => d.name),
            Object.keys(e.dims),
            `${v.name} dimensions`,
          );
          for (const d of v.dimensions) assert.deepEqual(plain(d.values), plain(e.dims[d.name]), `${v.name} ${d.name}`);
        }

        if (e.grid) {
          assert.equal(out.grid.width, e.grid.width, "width");
          assert.equal(out.grid.height, e.grid.height, "height");
          assert.equal(out.grid.y[0], e.grid.ymax_center, "northernmost row centre");
          assert.equal(out.grid.x[0], e.grid.xmin_center, "westernmost column centre");
          assert.equal(out.grid.crs.epsg, 4326);
        }

        for (const s of e.samples) {
          const v = out.variables.find((x) => x.name === s.variable)!;
          const slab = await v.read({
            dims: v.dimensions.map((d) => [s.index[d.name], s.index[d.name] + 1] as const),
            window: { x: s.col, y: s.row, width: 1, height: 1 },
          });
          const got = slab.data[0];
          const where = `${s.variable} ${JSON.stringify(s.index)} row ${s.row} col ${s.col}`;
          const isNodata = Number.isNaN(got) || got === v.nodata;
          if (s.value === null) assert.ok(isNodata, `${where}: expected nodata, got ${got}`);
          else {
            assert.ok(!isNodata, `${where}: expected ${s.value}, got nodata`);
            assert.equal(got, s.value, where);
          }
        }

        const stats = out.attributes["strata:statistics"] as Record<string, Statistics>;
        assert.ok(stats && typeof stats === "object", "root attribute strata:statistics");
        for (const [name, want] of Object.entries(e.statistics)) {
          for (const got of [stats[name], returned.get(name)]) {
            assert.ok(got, `statistics of ${name}`);
            assert.equal(got.count, want.count, `${name} count`);
            assert.equal(got.min, want.min, `${name} min`);
            assert.equal(got.max, want.max, `${name} max`);
            assert.ok(Math.abs(got.mean - want.mean) <= 1e-6 * Math.abs(want.mean), `${name} mean ${got.mean} vs numpy ${want.mean}`);
          }
        }
        assert.deepEqual(Object.keys(stats).sort(), Object.keys(e.statistics).sort(), "statistics for each variable, no other");
      } finally {
        await out.close();
      }
    });
  }
});
