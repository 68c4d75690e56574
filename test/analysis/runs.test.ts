/**
 * eachRun (analysis/runs.ts) hands each run its values in arrays it offers the reader again:
 * an array a run's `use` holds (a write from it in flight) is not read into again until the
 * hold settles (another is, or the read waits for one when the kernel's are all taken), and
 * a hold that rejects fails the walk.
 */
import assert from "node:assert/strict";
import { it } from "node:test";
import { eachRun } from "../../src/analysis/runs.js";
import { STD_TIME, type Selection, type TypedArray, type Variable } from "../../src/cube/types.js";

const BAND = { x: 0, y: 0, width: 2, height: 1 };
const RUNS = [0, 1, 2, 3].map((t) => [t, t + 1] as const);

/** A variable of 4 time steps of 1 × 2 pixels, value 10·t + column; its reads log the array each filled. */
function variable(log: { t: number; into?: TypedArray }[]): Variable {
  return {
    name: "v",
    description: "",
    unit: "",
    pixelType: "F32",
    dimensions: [{ name: STD_TIME, sourceName: "time", description: "", unit: "ISO8601", values: [0, 1, 2, 3] }],
    chunkShape: [1, 1, 2],
    attributes: {},
    async read(selection: Selection = {}) {
      const t = selection.dims![0][0];
      log.push({ t, into: selection.into });
      const data = selection.into ?? new Float32Array(2);
      data.set([10 * t, 10 * t + 1]);
      return { data, shape: [1, 1, 2] };
    },
  };
}

it("reads no run into an array a run before still holds, waits for one when the kernel's are all taken, and goes on once the hold settles", async () => {
  const log: { t: number; into?: TypedArray }[] = [];
  const arrays = [new Float32Array(2), new Float32Array(2)];
  const kernels: ArrayBufferLike[] = arrays.map((a) => a.buffer);
  let release!: () => void;
  const writing = new Promise<void>((resolve) => (release = resolve));
  const seen: number[][] = [];
  const walk = eachRun(variable(log), RUNS, [[0, 4]], BAND, { arrays: () => arrays.pop() }, async (t0, values, hold) => {
    seen.push([t0, ...values]);
    if (t0 === 0) hold(writing);
  });
  // Run 0 is used and held; run 1 is read into the other array; run 2 waits for an array.
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(
    log.map((r) => r.t),
    [0, 1],
    "run 2 read while the only arrays were in use or held",
  );
  release();
  await walk;
  assert.deepEqual(seen, [
    [0, 0, 1],
    [1, 10, 11],
    [2, 20, 21],
    [3, 30, 31],
  ]);
  assert.ok(
    log.every((r) => kernels.includes(r.into!.buffer)),
    "every run read into the kernel's two arrays (none into a fresh one while they were taken)",
  );
});

it("fails the walk when a hold rejects", async () => {
  const walk = eachRun(variable([]), RUNS, [[0, 4]], BAND, {}, async (t0, _values, hold) => {
    if (t0 === 1) hold(Promise.reject(new Error("the kept run could not be written (ENOSPC)")));
  });
  await assert.rejects(walk, /ENOSPC/);
});
