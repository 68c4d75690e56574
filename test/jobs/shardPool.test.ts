/**
 * The shard threads' pool (jobs/shardPool.ts) through fanOut, on this thread as `strata run`
 * uses it: one pass after another runs on the same threads, started once; a cancel mid-pass
 * terminates every shard's thread (and the fan-out settles once they have stopped); a
 * thread that crashed is replaced by a fresh one; idle threads are released, and do not keep
 * a process alive (`strata run --threads 3` exits as soon as it has written); threads warmed
 * ahead of a pass are the ones it runs on.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { fanOut } from "../../src/jobs/fanOut.js";
import { idleShardThreads, releaseIdleShardThreads, shardThreadsStarted, warmShardThreads } from "../../src/jobs/shardPool.js";
import type { Json } from "../../src/jobs/types.js";
import { runShard } from "./fixtures/testTasks.js";
import { TEST_TASKS, sleepMs } from "./helpers.js";

type ShardResult = { index: number; threadId: number };

function pass(count: number, payload: Json, signal = new AbortController().signal): Promise<ShardResult[]> {
  return fanOut(count, payload, {
    workerModule: TEST_TASKS.href,
    task: "fanOut",
    signal,
    progress: () => {},
    loadRunShard: async () => runShard,
  }) as Promise<ShardResult[]>;
}

describe("shard threads' pool", () => {
  it("runs pass after pass on the same threads, started once", async () => {
    await releaseIdleShardThreads();
    const before = shardThreadsStarted();
    const first = await pass(3, { ms: 40 });
    const threads = first.slice(1).map((r) => r.threadId);
    assert.equal(new Set(threads).size, 2);
    for (let i = 0; i < 3; i++) {
      const next = await pass(3, { ms: 40 });
      assert.deepEqual(new Set(next.slice(1).map((r) => r.threadId)), new Set(threads), `pass ${i + 2} on the first pass's threads`);
    }
    assert.equal(shardThreadsStarted() - before, 2, "two threads started for four passes");
    assert.equal(idleShardThreads(), 2);
  });

  it("warms threads ahead of a pass, counting idle ones, and the pass runs on them", async () => {
    await releaseIdleShardThreads();
    const before = shardThreadsStarted();
    warmShardThreads(2, TEST_TASKS.href);
    assert.equal(shardThreadsStarted() - before, 2);
    assert.equal(idleShardThreads(), 2);
    warmShardThreads(1, TEST_TASKS.href);
    assert.equal(shardThreadsStarted() - before, 2, "an idle thread serves");
    const results = await pass(3, { ms: 10 });
    assert.equal(new Set(results.slice(1).map((r) => r.threadId)).size, 2);
    assert.equal(shardThreadsStarted() - before, 2, "no thread started for the pass");
  });

  it("cancelling mid-pass terminates every shard's thread and settles once they have stopped", async () => {
    await pass(3, { ms: 10 }); // threads already running shards before, as in a job's later pass
    const before = shardThreadsStarted();
    const controller = new AbortController();
    const running = pass(3, { ms: 60_000 }, controller.signal);
    await sleepMs(300);
    const asked = Date.now();
    controller.abort(new Error("cancelled"));
    await assert.rejects(running, /cancelled/);
    assert.ok(Date.now() - asked < 2000, `took ${Date.now() - asked} ms`);
    assert.equal(idleShardThreads(), 0, "a terminated thread is not given back");
    await pass(3, { ms: 10 });
    assert.equal(shardThreadsStarted() - before, 2, "the next pass starts fresh threads");
  });

  it("replaces a thread that crashed with a fresh one", async () => {
    await releaseIdleShardThreads();
    const [, a, b] = await pass(3, { ms: 10 });
    const before = shardThreadsStarted();
    await assert.rejects(pass(3, { ms: 2000, crashShard: 2 }), /stopped unexpectedly \(exit code 7\)/);
    // Shard 2's thread crashed, shard 1's was terminated by the failure: neither comes back.
    assert.equal(idleShardThreads(), 0);
    const after = await pass(3, { ms: 10 });
    const used = after.slice(1).map((r) => r.threadId);
    assert.ok(!used.includes(a.threadId) && !used.includes(b.threadId), `threads ${used} after ${a.threadId}, ${b.threadId}`);
    assert.equal(shardThreadsStarted() - before, 2);
    assert.equal(idleShardThreads(), 2);
  });

  it("releases idle threads after a few seconds", async () => {
    await pass(2, { ms: 10 });
    assert.ok(idleShardThreads() >= 1);
    await sleepMs(6500);
    assert.equal(idleShardThreads(), 0);
  });

  it("does not keep a process alive: strata run --threads 3 exits as soon as it has written", async (t) => {
    const dir = await mkdtemp(join(tmpdir(), "strata-pool-exit-"));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const input = fileURLToPath(new URL("../golden/analysis/daily_nc4.nc", import.meta.url));
    const bin = fileURLToPath(new URL("../../bin/strata.js", import.meta.url));
    // A copy of its 1096 slices: a chunk a slice, shared over 3 threads.
    const child = spawn(process.execPath, [bin, "run", "Subset", "--input", input, "--output", join(dir, "out.zarr"), "--threads", "3"]);
    let stderr = "";
    let wrote = 0;
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      if (!wrote && stderr.includes("strata run: wrote")) wrote = Date.now();
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    assert.equal(code, 0, stderr);
    assert.match(stderr, /Working on 3 threads/);
    // Idle threads are released after 5 s: a process they held would wait that long.
    assert.ok(Date.now() - wrote < 2000, `exited ${Date.now() - wrote} ms after writing`);
  });
});
