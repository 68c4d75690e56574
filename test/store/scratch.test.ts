/**
 * A job's scratch (store/scratch.ts), through libuv's pool and on the job's thread (a job of
 * one thread): arrays written end to end read back equal, in place or whole, shares'
 * positional writes land in their own ranges of one file, a file shorter than asked is
 * refused naming it, and on the job's thread a write is in the file before its promise is
 * awaited.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { scratchIn } from "../../src/store/scratch.js";

let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-scratch-"));
});
after(() => rm(dir, { recursive: true, force: true }));

/** More than one write call's piece (1 MiB), so the loops go round. */
const LONG = 300_000;

for (const onThisThread of [false, true]) {
  describe(`a scratch ${onThisThread ? "on the job's thread" : "through libuv's pool"}`, () => {
    const path = () => join(dir, String(onThisThread));

    it("reads back the arrays it wrote end to end, and refuses a file of another size", async () => {
      const scratch = scratchIn(path(), { onThisThread });
      const sums = Float64Array.from({ length: LONG }, (_, i) => i / 3);
      const counts = Uint32Array.from({ length: 7 }, (_, i) => i * i);
      await scratch.writeArrays("u0-s1", [sums, counts]);
      const [sumsBack, countsBack] = [new Float64Array(LONG), new Uint32Array(7)];
      await scratch.readArrays("u0-s1", [sumsBack, countsBack]);
      assert.deepEqual(sumsBack, sums);
      assert.deepEqual(countsBack, counts);
      await assert.rejects(scratch.readArrays("u0-s1", [new Float64Array(LONG + 1)]), /scratch u0-s1 holds 2400028 bytes where 2400008/);
      // Whole, as the trend's merge reads a share's sums back.
      const whole = await scratch.read("u0-s1");
      assert.equal(whole.byteLength, 8 * LONG + 4 * 7);
      assert.deepEqual(new Float64Array(whole.slice(0, 8 * LONG).buffer), sums);
    });

    it("puts shares' positional writes in their own ranges of one file and reads any range back", async () => {
      const scratch = scratchIn(path(), { onThisThread });
      const [a, b] = await Promise.all([scratch.openAt("tiles", "write"), scratch.openAt("tiles", "write")]);
      const first = Float32Array.from({ length: LONG }, (_, i) => i);
      const second = Float32Array.from({ length: LONG }, (_, i) => -i);
      await Promise.all([b.writeAt(second, 4 * LONG), a.writeAt(first, 0)]);
      await Promise.all([a.close(), b.close()]);
      const reader = await scratch.openAt("tiles", "read");
      const middle = new Float32Array(4);
      await reader.readAt(middle, 4 * (LONG - 2));
      assert.deepEqual([...middle], [LONG - 2, LONG - 1, -0, -1]);
      await assert.rejects(reader.readAt(new Float32Array(2), 8 * LONG - 4), /scratch tiles ends before byte 2400004/);
      await reader.close();
      await scratch.remove();
    });

    if (onThisThread)
      it("has written a write's bytes before its promise is awaited", async () => {
        const scratch = scratchIn(path(), { onThisThread });
        const file = await scratch.openAt("now", "write");
        const pending = file.writeAt(Uint8Array.of(1, 2, 3), 0);
        assert.deepEqual([...(await readFile(join(path(), "strata-scratch", "now")))], [1, 2, 3]);
        await pending;
        await file.close();
      });
  });
}
