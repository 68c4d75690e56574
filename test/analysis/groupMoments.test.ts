/**
 * Per-group sums for the streaming anomaly, against hand-worked cases: the mean and the
 * population standard deviation of each group, nodata handling, and merging shares in any
 * order (through the job's scratch, as threads hand them over) giving what one pass gives;
 * sums reset for another unit giving what fresh ones give, their run arrays free again.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { GroupMoments, groupViewOffsets } from "../../src/analysis/groupMoments.js";
import { scratchIn } from "../../src/store/scratch.js";

const dirs: string[] = [];
after(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
/** A scratch as a job has, in a directory removed after the tests. */
async function jobScratch() {
  const dir = await mkdtemp(join(tmpdir(), "strata-moments-"));
  dirs.push(dir);
  return scratchIn(dir);
}

describe("GroupMoments", () => {
  it("means and standard deviations per group and pixel (hand-worked)", () => {
    // Two pixels; group 0 gets slices [1, 10] and [3, 10], group 1 gets [5, NaN].
    const m = new GroupMoments({ groups: 2, pixels: 2, withSd: true }, { values: 2, pixelType: "F32" });
    m.addRun(Float32Array.of(1, 10), [0], 0, NaN);
    m.addRun(Float32Array.of(3, 10), [0], 0, NaN);
    m.addRun(Float32Array.of(5, NaN), [1], 0, NaN);
    const { mean, sd } = m.finish(true);
    assert.deepEqual([...mean], [2, 10, 5, NaN]);
    // Group 0, pixel 0: values 1 and 3, µ = 2, s = 1; pixel 1: constant 10, s exactly 0.
    assert.deepEqual([...sd!], [1, 0, 0, NaN]);
  });

  it("a group that met nodata is nodata unless nodata is ignored; the nodata value counts as nodata", () => {
    const m = new GroupMoments({ groups: 1, pixels: 1, withSd: false }, { values: 1, pixelType: "S16" });
    m.addRun(Int16Array.of(4), [0], 0, -999);
    m.addRun(Int16Array.of(-999), [0], 0, -999);
    assert.deepEqual([...m.finish(true).mean], [4]);
    assert.deepEqual([...m.finish(false).mean], [NaN]);
  });

  it("shares merged in any order, through the job's scratch, equal one pass", async () => {
    const values = Float64Array.from({ length: 40 }, (_, i) => 1000 + Math.sin(i) * 3); // 20 slices of 2 pixels
    const runs = { values: 2, pixelType: "F64" } as const;
    const whole = new GroupMoments({ groups: 2, pixels: 2, withSd: true }, runs);
    const shares = [0, 1, 2].map(() => new GroupMoments({ groups: 2, pixels: 2, withSd: true }, runs));
    for (let t = 0; t < 20; t++) {
      whole.addRun(values.subarray(2 * t, 2 * t + 2), [t % 2], 0, NaN);
      shares[t % 3].addRun(values.subarray(2 * t, 2 * t + 2), [t % 2], 0, NaN);
    }
    const scratch = await jobScratch();
    const merged = new GroupMoments(whole.shape);
    await scratch.writeArrays("s2", shares[2].views());
    await scratch.readArrays("s2", merged.views());
    merged.merge(shares[0]);
    const other = new GroupMoments(whole.shape);
    await scratch.writeArrays("s1", shares[1].views());
    await scratch.readArrays("s1", other.views());
    merged.merge(other);
    const [a, b] = [whole.finish(true), merged.finish(true)];
    for (let i = 0; i < 4; i++) {
      assert.ok(Math.abs(a.mean[i] - b.mean[i]) <= 1e-12 * 1000, `mean ${i}`);
      assert.ok(Math.abs(a.sd![i] - b.sd![i]) <= 1e-12 * 1000, `sd ${i}`);
    }
    // numpy: np.std([1000 + np.sin(i) * 3 for i in range(0, 40, 4)]) for group 0, pixel 0
    const group0 = Array.from({ length: 10 }, (_, k) => 1000 + Math.sin(4 * k) * 3);
    const mu = group0.reduce((s, x) => s + x, 0) / 10;
    const s = Math.sqrt(group0.reduce((acc, x) => acc + (x - mu) ** 2, 0) / 10);
    assert.ok(Math.abs(b.mean[0] - mu) <= 1e-12 * 1000 && Math.abs(b.sd![0] - s) <= 1e-10, `${b.sd![0]} vs ${s}`);
  });

  it("means alone (one K per pixel) merge across shares whose first values differ by group", async () => {
    // 3 groups 40 K apart around 10^6, 12 slices of 2 pixels dealt to 2 shares, pixel 1 missing in share 0.
    const value = (t: number, p: number) => 1e6 + 40 * (t % 3) + 0.125 * t + p;
    const shares = [0, 1].map(() => new GroupMoments({ groups: 3, pixels: 2, withSd: false }, { values: 2, pixelType: "F64" }));
    for (let t = 0; t < 12; t++) shares[t < 5 ? 0 : 1].addRun(Float64Array.of(value(t, 0), t < 5 ? NaN : value(t, 1)), [t % 3], 0, -1);
    const scratch = await jobScratch();
    const merged = new GroupMoments(shares[1].shape);
    await scratch.writeArrays("s1", shares[1].views());
    await scratch.readArrays("s1", merged.views());
    merged.merge(shares[0]);
    const { mean } = merged.finish(true);
    for (let g = 0; g < 3; g++) {
      const ts = [g, g + 3, g + 6, g + 9];
      assert.equal(mean[g * 2], ts.reduce((a, t) => a + value(t, 0), 0) / 4, `group ${g}, pixel 0`);
      const later = ts.filter((t) => t >= 5);
      assert.equal(mean[g * 2 + 1], later.reduce((a, t) => a + value(t, 1), 0) / later.length, `group ${g}, pixel 1`);
    }
  });

  it("a group at a time, read from the sums written end to end (groupViewOffsets), gives each group's µ and s, bit for bit those of the whole merge", async () => {
    for (const withSd of [true, false]) {
      // 3 groups of 2 pixels, 15 slices dealt to 2 shares; pixel 1 missing in share 0's slices.
      const value = (t: number, p: number) => 1e6 + 40 * (t % 3) + 0.125 * t + p;
      const shape = { groups: 3, pixels: 2, withSd };
      const shares = [0, 1].map(() => new GroupMoments(shape, { values: 2, pixelType: "F64" }));
      for (let t = 0; t < 15; t++) shares[t % 2].addRun(Float64Array.of(value(t, 0), t % 2 ? value(t, 1) : NaN), [t % 3], 0, -1);
      const whole = new GroupMoments(shape);
      const scratch = await jobScratch();
      await scratch.writeArrays("s0", shares[0].views());
      await scratch.writeArrays("s1", shares[1].views());
      await scratch.readArrays("s0", whole.views());
      whole.merge(shares[1]);
      const expected = whole.finish(true);
      const files = [await scratch.openAt("s0", "read"), await scratch.openAt("s1", "read")];
      for (let g = 0; g < 3; g++) {
        const [sums, other] = [0, 1].map(() => new GroupMoments({ ...shape, groups: 1 }));
        for (const [k, into] of [sums, other].entries()) {
          const offsets = groupViewOffsets(shape, g);
          for (const [i, a] of into.views().entries()) await files[k].readAt(a, offsets[i]);
        }
        sums.merge(other);
        const { mean, sd } = sums.finish(true);
        // The group's values, worked here: slices t ≡ g (mod 3); pixel 1 only in share 1's (odd t).
        for (let p = 0; p < 2; p++) {
          const xs = Array.from({ length: 15 }, (_, t) => t)
            .filter((t) => t % 3 === g && (p === 0 || t % 2 === 1))
            .map((t) => value(t, p));
          const mu = xs.reduce((a, x) => a + x, 0) / xs.length;
          assert.ok(Math.abs(mean[p] - mu) <= 1e-9, `withSd ${withSd}, group ${g}, pixel ${p}: µ ${mean[p]} vs ${mu}`);
          if (withSd) {
            const s = Math.sqrt(xs.reduce((a, x) => a + (x - mu) ** 2, 0) / xs.length);
            assert.ok(Math.abs(sd![p] - s) <= 1e-9, `group ${g}, pixel ${p}: s ${sd![p]} vs ${s}`);
          }
        }
        assert.deepEqual([...mean], [...expected.mean.subarray(2 * g, 2 * g + 2)], `withSd ${withSd}, group ${g}: µ bit for bit`);
        if (withSd) assert.deepEqual([...sd!], [...expected.sd!.subarray(2 * g, 2 * g + 2)], `group ${g}: s bit for bit`);
      }
      await Promise.all(files.map((f) => f.close()));
    }
    // Offsets worked by hand: 3 groups of 2 pixels without s: K 2 × 8, Σ 6 × 8, n 6 × 4, bad 6.
    assert.deepEqual(groupViewOffsets({ groups: 3, pixels: 2, withSd: false }, 1), [0, 16 + 16, 64 + 8, 88 + 2]);
    // With s: K 6 × 8, Σ 6 × 8, Σ² 6 × 8, n 6 × 4, bad 6.
    assert.deepEqual(groupViewOffsets({ groups: 3, pixels: 2, withSd: true }, 2), [32, 48 + 32, 96 + 32, 144 + 16, 168 + 4]);
  });

  it("a run through the kernel: the sums written out here, slice by slice, bit for bit", () => {
    // 20,001 pixels (the kernel takes them in pairs), 7 slices in segments of 3 groups after 2
    // of another run (t0 = 2), nodata (NaN and -5) anywhere.
    const P = 20_001;
    const groups = [9, 9, 2, 0, 0, 1, 2, 2, 0];
    const values = Float32Array.from({ length: 7 * P }, (_, i) => (i % 101 === 0 ? NaN : i % 103 === 0 ? -5 : 300 + Math.sin(i) * 20));
    for (const withSd of [false, true]) {
      const m = new GroupMoments({ groups: 3, pixels: P, withSd }, { values: 7 * P, pixelType: "F32" });
      m.addRun(values, groups, 2, -5);
      // K: each cell's first valid value with s, each pixel's (whatever its group) without.
      const shift = new Float64Array(withSd ? 3 * P : P).fill(NaN);
      const [s1, s2, n, bad] = [new Float64Array(3 * P), new Float64Array(3 * P), new Uint32Array(3 * P), new Uint8Array(3 * P)];
      for (let k = 0; k < 7; k++) {
        const g = groups[2 + k];
        for (let p = 0; p < P; p++) {
          const x = values[k * P + p];
          const i = g * P + p;
          if (Number.isNaN(x) || x === -5) {
            bad[i] = 1;
            continue;
          }
          const at = withSd ? i : p;
          if (Number.isNaN(shift[at])) shift[at] = x;
          const d = x - shift[at];
          s1[i] += d;
          s2[i] += d * d;
          n[i]++;
        }
      }
      assert.deepEqual(m.shift, shift);
      assert.deepEqual(m.s1, s1);
      if (withSd) assert.deepEqual(m.s2, s2);
      assert.deepEqual(m.n, n);
      assert.deepEqual(m.bad, bad);
    }
  });

  it("reset for another unit of its shape: the sums fresh ones give, its run arrays free again", () => {
    const shape = { groups: 2, pixels: 2, withSd: true };
    const runs = { values: 2, pixelType: "F32" as const };
    const used = new GroupMoments(shape, runs);
    const taken = [used.runArray(2), used.runArray(2)];
    assert.ok(taken.every((a) => a !== undefined) && used.runArray(2) === undefined, "two run arrays, both taken");
    used.addRun(Float32Array.of(7, -3), [1], 0, NaN);
    used.addRun(Float32Array.of(NaN, 2), [0], 0, NaN);
    assert.ok(used.sizedFor(shape, runs));
    assert.ok(!used.sizedFor({ ...shape, pixels: 3 }, runs) && !used.sizedFor(shape, { values: 4, pixelType: "F32" }));
    assert.ok(!used.sizedFor({ ...shape, withSd: false }, runs) && !used.sizedFor(shape, { values: 2, pixelType: "F64" }));
    used.reset();
    assert.ok(used.runArray(2) !== undefined && used.runArray(2) !== undefined, "the run arrays free again");
    const fresh = new GroupMoments(shape, runs);
    for (const m of [used, fresh]) {
      m.addRun(Float32Array.of(1, 10), [0], 0, NaN);
      m.addRun(Float32Array.of(5, NaN), [1], 0, NaN);
    }
    assert.deepEqual(used.views(), fresh.views());
    assert.deepEqual(used.finish(false), fresh.finish(false));
  });

  it("refuses sums of another shape", async () => {
    const scratch = await jobScratch();
    await scratch.writeArrays("s0", new GroupMoments({ groups: 1, pixels: 3, withSd: false }).views());
    await assert.rejects(
      scratch.readArrays("s0", new GroupMoments({ groups: 1, pixels: 2, withSd: false }).views()),
      /holds 63 bytes where 42/,
    );
  });

  it("sums sized for merging only refuse a run", () => {
    assert.throws(
      () => new GroupMoments({ groups: 1, pixels: 1, withSd: false }).addRun(Float32Array.of(1), [0], 0, NaN),
      /not sized for runs/,
    );
  });
});
