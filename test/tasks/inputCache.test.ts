/**
 * The input a thread keeps between shards (tasks/inputCache.ts): opened once for the passes
 * of one job, closed when another job's shard comes or the thread is released, the run's own
 * input lent to the shard on its thread, and never used by two shards at once.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { OpenedInput } from "../../src/tasks/common.js";
import { borrowInput, closeKeptInput, lendInput } from "../../src/tasks/inputCache.js";

/** Inputs that record their opens and closes. */
function inputs() {
  const log: string[] = [];
  let n = 0;
  const open = (name: string) => async (): Promise<OpenedInput> => {
    const id = `${name}#${++n}`;
    log.push(`open ${id}`);
    return { close: async () => void log.push(`close ${id}`) } as unknown as OpenedInput;
  };
  return { log, open };
}

const task = {};

describe("the input kept between shards", () => {
  it("is opened once for a job's passes, and closed when another job's shard comes", async () => {
    const { log, open } = inputs();
    for (let pass = 0; pass < 3; pass++) {
      const lease = await borrowInput(task, "job A", open("A"));
      await lease.release(true);
    }
    assert.deepEqual(log, ["open A#1"]);
    const b = await borrowInput(task, "job B", open("B"));
    assert.deepEqual(log, ["open A#1", "close A#1", "open B#2"]);
    await b.release(true);
    await closeKeptInput();
    assert.deepEqual(log.slice(3), ["close B#2"]);
  });

  it("is another one for a shard that comes while it is busy, closed when that shard ends", async () => {
    const { log, open } = inputs();
    const first = await borrowInput(task, "job", open("x"));
    const second = await borrowInput(task, "job", open("x"));
    assert.notEqual(first.input, second.input);
    await second.release(true);
    assert.deepEqual(log, ["open x#1", "open x#2", "close x#2"]);
    await first.release(true);
    const third = await borrowInput(task, "job", open("x"));
    assert.equal(third.input, first.input, "the kept one, free again");
    await third.release(true);
    await closeKeptInput();
  });

  it("is closed after a shard that failed with it", async () => {
    const { log, open } = inputs();
    await (await borrowInput(task, "job", open("x"))).release(false);
    await (await borrowInput(task, "job", open("x"))).release(true);
    await closeKeptInput();
    assert.deepEqual(log, ["open x#1", "close x#1", "open x#2", "close x#2"]);
  });

  it("is the run's own when the run lent it, for one shard at a time, and never closed by a shard", async () => {
    const { log, open } = inputs();
    const own = await open("run")();
    const takeBack = lendInput(task, "job", own);
    const a = await borrowInput(task, "job", open("x"));
    assert.equal(a.input, own);
    const b = await borrowInput(task, "job", open("x"));
    assert.notEqual(b.input, own);
    await a.release(false);
    await b.release(true);
    takeBack();
    const c = await borrowInput(task, "job", open("x"));
    assert.notEqual(c.input, own, "taken back");
    await c.release(true);
    await closeKeptInput();
    // The run closes its own; the second shard's stayed kept until the thread let it go.
    assert.deepEqual(log, ["open run#1", "open x#2", "close x#2"]);
  });
});
