/**
 * computeAnomaly over an in-memory cube: tiles through the whole time axis at each value of
 * the other dimensions (before or after StdTime), a window, an external reference, progress
 * and cancellation. Expected values come from a plain per-pixel oracle written here.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { type AnomalyMethod, type AnomalyPlan, computeAnomaly, referenceMismatch } from "../../src/analysis/anomaly.js";
import { gridFromTransform } from "../../src/cube/grid.js";
import type { Cube, Dimension, Selection, Slab, Variable } from "../../src/cube/types.js";

const H = 5;
const W = 7;
const MONTH = (i: number) => Date.UTC(1990 + Math.floor(i / 3), (i % 3) * 4, 15); // Jan, May, Sep of 1990, 1991, ...

function dim(name: string, values: number[]): Dimension {
  return { name, sourceName: name, description: name, unit: name === "StdTime" ? "ISO8601" : "m", values };
}

/** A variable over [...dims, H, W] whose value is f(index of each dim, row, col); NaN as given. */
function memVariable(name: string, dims: Dimension[], f: (idx: number[], row: number, col: number) => number, nodata = -999): Variable {
  const reads: Selection[] = [];
  const v: Variable & { reads: Selection[] } = {
    name,
    description: name,
    unit: "K",
    pixelType: "F32",
    nodata,
    dimensions: dims,
    chunkShape: [...dims.map(() => 1), H, W],
    attributes: {},
    reads,
    async read(sel: Selection = {}): Promise<Slab> {
      sel.signal?.throwIfAborted();
      reads.push(sel);
      const ranges = dims.map((d, i) => sel.dims?.[i] ?? ([0, d.values.length] as const));
      const w = sel.window ?? { x: 0, y: 0, width: W, height: H };
      const shape = [...ranges.map(([a, b]) => b - a), w.height, w.width];
      const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
      let k = 0;
      const idx = ranges.map(([a]) => a);
      const walk = (d: number): void => {
        if (d === ranges.length) {
          for (let r = 0; r < w.height; r++) for (let c = 0; c < w.width; c++) data[k++] = f(idx, w.y + r, w.x + c);
          return;
        }
        for (let i = ranges[d][0]; i < ranges[d][1]; i++) {
          idx[d] = i;
          walk(d + 1);
        }
      };
      walk(0);
      return { data, shape };
    },
  };
  return v;
}

function memCube(variables: Variable[]): Cube {
  return {
    grid: gridFromTransform(W, H, [0, 1, 0, 10, 0, -1], { epsg: 4326 }),
    variables,
    attributes: {},
    skipped: [],
    close: async () => {},
  };
}

/** Collects written blocks into whole output arrays (C order over [...dims, rows, cols]). */
function memSink(shapes: Record<string, number[]>) {
  const arrays = new Map(Object.entries(shapes).map(([k, s]) => [k, new Float64Array(s.reduce((a, b) => a * b, 1)).fill(-12345)]));
  const blocks: { name: string; start: number[]; shape: number[] }[] = [];
  return {
    arrays,
    blocks,
    async writeBlock(name: string, start: readonly number[], slab: Slab) {
      blocks.push({ name, start: [...start], shape: [...slab.shape] });
      const full = shapes[name];
      const out = arrays.get(name)!;
      const n = slab.shape.length;
      const pos = new Array<number>(n).fill(0);
      for (let k = 0; k < slab.data.length; k++) {
        let off = 0;
        for (let d = 0; d < n; d++) off = off * full[d] + start[d] + pos[d];
        out[off] = slab.data[k];
        for (let d = n - 1; d >= 0; d--) {
          if (++pos[d] < slab.shape[d]) break;
          pos[d] = 0;
        }
      }
    },
  };
}

/** Plain oracle: anomalies of one pixel's series with groups, straight from docs/tasks.md. */
function oracle(series: number[], groups: number[], method: AnomalyMethod, ignore: boolean): number[] {
  const out = series.map(() => NaN);
  for (const g of new Set(groups)) {
    const idx = groups.map((x, i) => (x === g ? i : -1)).filter((i) => i >= 0);
    const vals = idx.map((i) => series[i]).filter((x) => !Number.isNaN(x));
    if (vals.length === 0 || (!ignore && vals.length < idx.length)) continue;
    const mu = vals.reduce((a, b) => a + b, 0) / vals.length;
    const s = Math.sqrt(vals.reduce((a, b) => a + (b - mu) ** 2, 0) / vals.length);
    const sorted = [...vals].sort((a, b) => a - b);
    const m = sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    const R = method.endsWith("MEDIAN") ? m : mu;
    for (const i of idx) {
      const x = series[i];
      if (Number.isNaN(x)) continue;
      let v: number;
      if (method.startsWith("DIFFERENCE")) v = x - R;
      else if (method.startsWith("PERCENT_DIFFERENCE")) v = (x + R) / 2 === 0 ? NaN : Math.abs(x - R) / ((x + R) / 2);
      else if (method.startsWith("PERCENT_OF")) v = R === 0 ? NaN : x / R;
      else v = s === 0 ? NaN : (x - mu) / s;
      out[i] = v;
    }
  }
  return out;
}

// 6 slices (Jan, May, Sep of 1990 and 1991), 2 depths. Some nodata (-999) and NaN holes.
const times = [0, 1, 2, 3, 4, 5].map(MONTH);
const depths = [-10, -50];
const value = (t: number, z: number, row: number, col: number) => {
  if ((t + row + 2 * col) % 7 === 3) return -999;
  if (row === 4 && col === 6 && t === 2) return NaN;
  return Math.fround(Math.sin(t * 1.3 + z * 0.7 + row * 0.1 + col * 0.37) * 10 + 20 + z);
};

describe("computeAnomaly walking a cube", () => {
  // "temp" has StdZ before StdTime, "salt" StdTime only.
  const temp = memVariable("temp", [dim("StdZ", depths), dim("StdTime", times)], ([z, t], r, c) => value(t, z, r, c));
  const salt = memVariable("salt", [dim("StdTime", times)], ([t], r, c) => value(t, 1, r, c));
  const cube = memCube([temp, salt]);
  const window = { x: 1, y: 1, width: 5, height: 4 };

  for (const [method, interval, ignore] of [
    ["DIFFERENCE_FROM_MEAN", "RECURRING_MONTHLY", true],
    ["Z_SCORE", "YEARLY", true],
    ["PERCENT_OF_MEDIAN", "ALL", false],
    ["PERCENT_DIFFERENCE_FROM_MEDIAN", "RECURRING_MONTHLY", true],
  ] as const) {
    it(`${method} ${interval} ignoreNoData=${ignore}: every pixel equals the oracle, blocks are whole tiles`, async () => {
      const plan: AnomalyPlan = {
        variables: ["temp", "salt"],
        method,
        calculationInterval: interval,
        ignoreNoData: ignore,
        window,
        tile: 2,
      };
      const sink = memSink({ temp: [2, 6, 4, 5], salt: [6, 4, 5] });
      const progress: number[] = [];
      const stats = await computeAnomaly(cube, plan, sink, { onProgress: (f) => progress.push(f) });
      // 2 depths x 6 tiles + 6 tiles.
      assert.equal(progress.length, 18);
      assert.equal(progress.at(-1), 1);
      assert.ok(sink.blocks.every((b) => b.start.at(-1)! % 2 === 0 && b.start.at(-2)! % 2 === 0));
      assert.ok(sink.blocks.filter((b) => b.name === "temp").every((b) => b.shape[0] === 1 && b.shape[1] === 6));
      const groups =
        interval === "RECURRING_MONTHLY" ? [0, 1, 2, 0, 1, 2] : interval === "YEARLY" ? [0, 0, 0, 1, 1, 1] : [0, 0, 0, 0, 0, 0];
      let n = 0;
      for (const [name, zs] of [
        ["temp", [0, 1]],
        ["salt", [-1]],
      ] as const) {
        const out = sink.arrays.get(name)!;
        for (const [zi, z] of zs.map((z, i) => [i, z])) {
          for (let r = 0; r < 4; r++) {
            for (let c = 0; c < 5; c++) {
              const series = times.map((_, t) => {
                const x = value(t, name === "temp" ? z : 1, r + 1, c + 1);
                return x === -999 ? NaN : x;
              });
              const want = oracle(series, groups, method, ignore);
              for (let t = 0; t < 6; t++) {
                const got = out[(((name === "temp" ? zi : 0) * 6 + t) * 4 + r) * 5 + c];
                const where = `${name} z${zi} t${t} r${r} c${c}`;
                if (Number.isNaN(want[t])) assert.ok(Number.isNaN(got), `${where}: expected NaN, got ${got}`);
                else {
                  assert.ok(Math.abs(got - want[t]) <= 1e-5 * Math.max(1, Math.abs(want[t])), `${where}: ${got} vs ${want[t]}`);
                  n++;
                }
              }
            }
          }
        }
      }
      assert.ok(n > 40, `${n} valid values checked`);
      assert.ok(stats.get("temp")!.count > 0 && stats.get("salt")!.count > 0);
    });
  }

  it("an external reference: one slice, or slice by slice, matched by the other dimensions' names", async () => {
    // Reference with StdTime of one slice, StdZ after it: R = 20 + z index.
    const one = memVariable("temp", [dim("StdTime", [times[0]]), dim("StdZ", depths)], ([, z]) => 20 + z);
    const perSlice = memVariable("temp", [dim("StdZ", depths), dim("StdTime", times)], ([z, t]) => t + z * 100);
    for (const [ref, R] of [
      [one, (_t: number, z: number) => 20 + z],
      [perSlice, (t: number, z: number) => t + z * 100],
    ] as const) {
      assert.equal(referenceMismatch(temp, ref), undefined);
      const sink = memSink({ temp: [2, 6, 4, 5] });
      const plan: AnomalyPlan = {
        variables: ["temp"],
        method: "DIFFERENCE_FROM_MEAN",
        calculationInterval: "EXTERNAL_RASTER",
        ignoreNoData: false,
        window,
        tile: 3,
      };
      await computeAnomaly(cube, plan, sink, { reference: memCube([ref]) });
      const out = sink.arrays.get("temp")!;
      for (let z = 0; z < 2; z++)
        for (let t = 0; t < 6; t++)
          for (let r = 0; r < 4; r++)
            for (let c = 0; c < 5; c++) {
              const x = value(t, z, r + 1, c + 1);
              const got = out[((z * 6 + t) * 4 + r) * 5 + c];
              if (x === -999 || Number.isNaN(x)) assert.ok(Number.isNaN(got));
              else assert.ok(Math.abs(got - (x - R(t, z))) < 1e-5, `z${z} t${t}: ${got} vs ${x - R(t, z)}`);
            }
    }
  });

  it("says why a reference does not fit", () => {
    const wrongTimes = memVariable("temp", [dim("StdZ", depths), dim("StdTime", times.slice(0, 2))], () => 0);
    assert.match(referenceMismatch(temp, wrongTimes)!, /StdTime/);
    const noZ = memVariable("temp", [dim("StdTime", times)], () => 0);
    assert.match(referenceMismatch(temp, noZ)!, /StdZ/);
    const otherZ = memVariable("temp", [dim("StdZ", [-10, -60])], () => 0);
    assert.match(referenceMismatch(temp, otherZ)!, /StdZ values/);
    assert.equal(
      referenceMismatch(
        temp,
        memVariable("temp", [dim("StdZ", depths)], () => 0),
      ),
      undefined,
    );
  });

  it("stops between tiles when the signal is aborted, and the abort reaches the reads", async () => {
    const controller = new AbortController();
    const sink = memSink({ salt: [6, 4, 5] });
    const plan: AnomalyPlan = { variables: ["salt"], method: "Z_SCORE", calculationInterval: "ALL", ignoreNoData: true, window, tile: 1 };
    await assert.rejects(
      computeAnomaly(cube, plan, sink, { signal: controller.signal, onProgress: () => controller.abort() }),
      (e: Error) => e.name === "AbortError",
    );
    assert.equal(sink.blocks.length, 1, "one tile written, then stopped");
  });
});
