/** Stacking cubes along a shared dimension, checked on small hand-made cubes. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidInputError } from "../../src/cube/errors.js";
import { gridFromTransform } from "../../src/cube/grid.js";
import { stackCubes } from "../../src/cube/stack.js";
import type { Cube, Dimension, Selection } from "../../src/cube/types.js";

const grid = gridFromTransform(2, 1, [0, 1, 0, 1, 0, -1], { epsg: 4326 });

/** A cube with dims (StdTime, StdZ): value = time*100 + z*10 + column. */
function cube(times: number[], zs = [0, -10], g = grid): Cube {
  const dims: Dimension[] = [
    { name: "StdTime", sourceName: "time", description: "", unit: "ISO8601", values: times },
    { name: "StdZ", sourceName: "z", description: "", unit: "m", values: zs },
  ];
  return {
    grid: g,
    attributes: {},
    skipped: [],
    close: async () => {},
    variables: [
      {
        name: "t",
        description: "",
        unit: "",
        pixelType: "F64",
        nodata: NaN,
        dimensions: dims,
        chunkShape: [1, 1, 1, 2],
        attributes: {},
        async read(sel: Selection = {}) {
          const [[t0, t1], [z0, z1]] = [sel.dims?.[0] ?? [0, times.length], sel.dims?.[1] ?? [0, zs.length]];
          const out: number[] = [];
          for (let t = t0; t < t1; t++) for (let z = z0; z < z1; z++) for (let c = 0; c < 2; c++) out.push(times[t] * 100 + -zs[z] + c);
          return { data: Float64Array.from(out), shape: [t1 - t0, z1 - z0, 1, 2] };
        },
      },
    ],
  };
}

describe("stackCubes", () => {
  it("sorts the members' slices by value and reads each from its member", async () => {
    const stacked = stackCubes([cube([3, 5]), cube([1]), cube([4])], ["a", "b", "c"], "input");
    const v = stacked.variables[0];
    assert.deepEqual(v.dimensions[0].values, [1, 3, 4, 5]);
    assert.equal(v.dimensions[0].interval, undefined);
    const all = await v.read();
    assert.deepEqual(all.shape, [4, 2, 1, 2]);
    assert.deepEqual(Array.from(all.data), [100, 101, 110, 111, 300, 301, 310, 311, 400, 401, 410, 411, 500, 501, 510, 511]);
    const part = await v.read({
      dims: [
        [1, 3],
        [1, 2],
      ],
    });
    assert.deepEqual(Array.from(part.data), [310, 311, 410, 411]);
  });

  it("refuses different grids, duplicate slices and nothing in common", () => {
    const other = gridFromTransform(2, 1, [10, 1, 0, 1, 0, -1], { epsg: 4326 });
    assert.throws(
      () => stackCubes([cube([1]), cube([2], [0, -10], other)], ["a", "b"], "input"),
      (e: Error) => e instanceof InvalidInputError && /b is on a different grid/.test(e.message),
    );
    assert.throws(() => stackCubes([cube([1, 2]), cube([2])], ["a", "b"], "input"), /both hold StdTime = 2/);
    assert.throws(() => stackCubes([cube([1]), cube([2], [0, -20])], ["a", "b"], "input"), /does not match a/);
    assert.throws(() => stackCubes([], [], "input"), /nothing to stack/);
  });
});
