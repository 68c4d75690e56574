/**
 * The per-value loops of the streamed passes allocate nothing per value. V8 boxes a double in
 * a heap number whenever a loop mixes it with a value it keeps tagged (the global `NaN` in a
 * conditional, a loop variable started from a closure's value), and a daily cube then costs
 * gigabytes of garbage: the mean anomaly spent a quarter of its time collecting it. Each
 * kernel runs over a slice of a daily 0.5° grid while young-generation collections are
 * counted: boxing shows as dozens of them, a clean loop as none or one.
 */
import assert from "node:assert/strict";
import { PerformanceObserver } from "node:perf_hooks";
import { describe, it } from "node:test";
import { applyAnomalyRow } from "../../src/analysis/anomaly.js";
import { GroupMoments } from "../../src/analysis/groupMoments.js";
import { statisticsAccumulator } from "../../src/analysis/statistics.js";
import { halveBlock } from "../../src/io/zarrOverviews.js";

const P = 360 * 720;
const ROUNDS = 60;
/** How long a kernel may take to be optimised before its collections count against it. */
const BATCH_SECONDS = 30;

/**
 * Minor collections while `work` runs ROUNDS times, the fewest of batches tried for up to
 * BATCH_SECONDS: on a busy machine the optimising compiler (a background thread) may take
 * many batches to finish, and the code that runs meanwhile boxes whatever it likes. A clean
 * kernel shows it in the first batch on a quiet machine; a boxing one never does.
 */
async function minorCollections(work: () => void): Promise<number> {
  for (let r = 0; r < 40; r++) work();
  let fewest = Infinity;
  const until = performance.now() + BATCH_SECONDS * 1000;
  for (let batch = 0; (batch < 8 || performance.now() < until) && fewest > BOUND; batch++) {
    let count = 0;
    const observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if ((entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === 1) count++;
    });
    observer.observe({ entryTypes: ["gc"] });
    for (let r = 0; r < ROUNDS; r++) work();
    await new Promise((resolve) => setTimeout(resolve, 50)); // gc entries arrive asynchronously
    observer.disconnect();
    fewest = Math.min(fewest, count);
  }
  return fewest;
}

// Real slices mostly have no nodata at all: V8 compiles a branch never taken differently, and
// that is where the anomaly's loop boxed.
const slice = Float32Array.from({ length: P }, (_, i) => 280 + 10 * Math.sin(i));
const withGaps = Float32Array.from(slice, (x, i) => (i % 97 === 0 ? NaN : x));
// Boxing every value of ROUNDS slices would allocate ROUNDS × P × 16 bytes (≈ 250 MB).
const BOUND = 4;

describe("streamed kernels allocate nothing per value", () => {
  it("the anomaly of a slice (each method)", async () => {
    const out = new Float32Array(P);
    const ref = new Float64Array(P).fill(281);
    const sd = new Float64Array(P).fill(2);
    for (const method of ["DIFFERENCE_FROM_MEAN", "PERCENT_DIFFERENCE_FROM_MEAN", "PERCENT_OF_MEAN", "Z_SCORE"] as const) {
      for (const values of [slice, withGaps]) {
        const count = await minorCollections(() => applyAnomalyRow(values, out, 0, 0, P, NaN, method, ref, 0, sd, 0));
        assert.ok(count <= BOUND, `${method}: ${count} minor collections`);
      }
    }
  });

  it("the output statistics of a slice", async () => {
    for (const values of [slice, withGaps]) {
      const acc = statisticsAccumulator();
      const count = await minorCollections(() => acc.add(values, undefined));
      assert.ok(count <= BOUND, `${count} minor collections`);
      assert.equal(acc.result()!.count % (values === slice ? P : P - Math.ceil(P / 97)), 0);
    }
  });

  it("the group sums of a slice", async () => {
    for (const values of [slice, withGaps]) {
      const m = new GroupMoments({ groups: 12, pixels: P, withSd: true }, { values: P, pixelType: "F32" });
      const groups = Int32Array.from({ length: 12 }, (_, g) => g);
      let t = 0;
      const count = await minorCollections(() => m.addRun(values, groups, t++ % 12, NaN));
      assert.ok(count <= BOUND, `${count} minor collections`);
    }
  });

  it("the overview level of a slice (io/zarrOverviews.ts, in the write pass)", async () => {
    for (const values of [slice, withGaps]) {
      for (const nodata of [undefined, -9999]) {
        // Into one array kept between blocks, as the writer's levels do.
        const block = { data: values, shape: [1, 360, 720] };
        const into = new Float32Array(P / 4);
        const count = await minorCollections(() => void halveBlock([0, 0, 0], block, [360, 720], nodata, into));
        assert.ok(count <= BOUND, `nodata ${nodata}: ${count} minor collections`);
      }
    }
  });
});
