/**
 * Subset of an input stored many time steps per chunk (issue 11): daily_t100.nc holds
 * daily.nc 100 days × 2 rows × 5 columns a chunk, zlib and shuffle. Its output must hold the
 * values netCDF4-python reads from daily.nc (daily_t100.subset.json, made by
 * scripts/goldens/make_chunked_copies.py), and each stored chunk must be read once: a tile
 * of whole chunks through a chunk's kept days at a time, never a slice at a time (which
 * decoded each chunk once for each of its days).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { chunkGroups, subsetLayout } from "../../src/analysis/subsetLayout.js";
import { openCube } from "../../src/io/open.js";
import { type SubsetOptions, subsetOutput, subsetTask, writeSubset } from "../../src/tasks/subset.js";
import type { InputLocation, ParseEnv } from "../../src/tasks/types.js";
import { chunksMet, countedReads } from "../helpers/countedReads.js";

const FILE = fileURLToPath(new URL("../golden/analysis/daily_t100.nc", import.meta.url));
const GOLDEN = JSON.parse(readFileSync(fileURLToPath(new URL("../golden/analysis/daily_t100.subset.json", import.meta.url)), "utf8")) as {
  first: number;
  last: number;
  shape: number[];
  tas: (number | null)[];
};
const env: ParseEnv = {
  resolveInput: async () => ({ location: { path: FILE }, warnings: [] }),
  resolveOutput: async () => ({ kind: "create", serviceName: "x", itemProperties: {} }),
  openCube: (location: InputLocation) => openCube(location.path!),
};

let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-subset-time-chunks-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The plan of the golden case: days 2019-04-06 to 2019-11-02, every cell. */
async function goldenPlan(): Promise<SubsetOptions> {
  const { options } = await subsetTask.parse(
    {
      inputMultidimensionalRaster: JSON.stringify({ uri: "daily_t100.nc" }),
      outputName: '{"serviceProperties":{"name":"x"}}',
      dimensionDefinition: "BY_RANGES",
      dimensionRanges: JSON.stringify([{ dimension: "StdTime", minValue: "2019-04-06", maxValue: "2019-11-02T23:59:59" }]),
    },
    env,
  );
  return JSON.parse(JSON.stringify(options)) as SubsetOptions;
}

describe("Subset of an input stored many time steps per chunk", () => {
  it("copies the values netCDF4-python reads, every day and cell of the range, nodata where the file has its fill value", async () => {
    const plan = await goldenPlan();
    const path = join(dir, "golden.zarr");
    const source = await openCube(FILE);
    try {
      await writeSubset(source, { ...plan, tile: 512 }, path);
    } finally {
      await source.close();
    }
    const out = await openCube(path);
    try {
      const v = out.variables[0];
      assert.equal(v.name, "tas");
      const slab = await v.read();
      assert.deepEqual(slab.shape, GOLDEN.shape);
      let nodata = 0;
      GOLDEN.tas.forEach((want, i) => {
        const got = slab.data[i];
        const isNodata = Number.isNaN(got) || got === v.nodata;
        if (want === null) {
          nodata++;
          assert.ok(isNodata, `value ${i}: expected nodata, got ${got}`);
        } else assert.equal(got, want, `value ${i}`);
      });
      assert.ok(nodata > 0, "the case holds fill values");
    } finally {
      await out.close();
    }
  });

  it("copies scattered days, a chunk's kept days read at once with those between", async () => {
    const plan = await goldenPlan();
    const days = [95, 97, 150, 199, 200, 260, 261, 305];
    const path = join(dir, "scattered.zarr");
    const source = await openCube(FILE);
    try {
      const variables = plan.variables.map((v) => ({ ...v, indices: [days, ...v.indices.slice(1)] }));
      await writeSubset(source, { ...plan, variables, tile: 512 }, path);
    } finally {
      await source.close();
    }
    const out = await openCube(path);
    try {
      const slab = await out.variables[0].read();
      assert.deepEqual(slab.shape, [days.length, 4, 5]);
      days.forEach((day, k) => {
        for (let i = 0; i < 20; i++) {
          const want = GOLDEN.tas[(day - GOLDEN.first) * 20 + i];
          const got = slab.data[k * 20 + i];
          if (want === null) assert.ok(Number.isNaN(got) || got === out.variables[0].nodata, `day ${day} cell ${i}`);
          else assert.equal(got, want, `day ${day} cell ${i}`);
        }
      });
    } finally {
      await out.close();
    }
    // Days 95 and 97, 150 and 199, 200-261, 305: four chunks, one read each.
    assert.deepEqual(chunkGroups(days, 100), [
      [0, 2],
      [2, 4],
      [4, 7],
      [7, 8],
    ]);
  });

  it("reads each stored chunk once, a tile of whole chunks through a chunk's kept days, its output chunks those tiles", async () => {
    const plan = await goldenPlan();
    const source = await openCube(FILE);
    try {
      const v = source.variables.find((x) => x.name === "tas")!;
      assert.deepEqual(v.chunkShape, [100, 2, 5]);
      // The job's messages say which walk and why.
      assert.match(
        subsetOutput(source, { ...plan, tile: 512 }).walk?.note ?? "",
        /tas is stored 100 time steps per chunk: copied in tiles of 4 × 5/,
      );
      // A tile of whole chunks: the grid (4 × 5) is two chunks tall.
      assert.deepEqual(subsetLayout(v, plan.window, 512), { height: 4, width: 5, timeChunk: 100 });
      // Tiles of one chunk when a tile of two would read more than the budget allows.
      assert.deepEqual(subsetLayout(v, plan.window, 512, 100 * 2 * 5 * 4), { height: 2, width: 5, timeChunk: 100 });
      const { cube, reads } = countedReads(source);
      const path = join(dir, "counted.zarr");
      await writeSubset(cube, { ...plan, tile: 512 }, path);
      // Days 95-305 in chunks of 100 days and 2 rows: 4 × 2 chunks, each read once.
      const touched = chunksMet(reads, 100, 2);
      assert.deepEqual([...touched.keys()].sort(), ["0:0", "0:1", "1:0", "1:1", "2:0", "2:1", "3:0", "3:1"]);
      assert.ok(
        [...touched.values()].every((n) => n === 1),
        JSON.stringify([...touched]),
      );
      assert.deepEqual(
        reads.map((r) => r.dims![0]),
        [
          [95, 100],
          [100, 200],
          [200, 300],
          [300, 306],
        ],
      );
      const out = await openCube(path);
      try {
        assert.deepEqual(out.variables[0].chunkShape, [1, 4, 5]);
      } finally {
        await out.close();
      }
    } finally {
      await source.close();
    }
  });
});
