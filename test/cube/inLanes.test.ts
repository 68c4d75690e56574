/**
 * inLanes: every item once, started in order, never more than `lanes` at once, and a failure
 * rejects the whole and stops the lanes taking more.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { inLanes } from "../../src/cube/inLanes.js";

describe("inLanes", () => {
  it("works every item once, in order of starting, at most `lanes` at once", async () => {
    const started: number[] = [];
    let running = 0;
    let most = 0;
    await inLanes([5, 1, 4, 2, 3, 0, 2, 1], 3, async (ms) => {
      started.push(ms);
      most = Math.max(most, ++running);
      await sleep(ms);
      running--;
    });
    assert.deepEqual(started, [5, 1, 4, 2, 3, 0, 2, 1]);
    assert.equal(most, 3);
  });

  it("one lane works in sequence; no items, no work", async () => {
    let running = 0;
    await inLanes([1, 1, 1], 1, async () => {
      assert.equal(++running, 1);
      await sleep(1);
      running--;
    });
    await inLanes([], 4, async () => assert.fail("no item to work"));
  });

  it("a failure rejects, and the lanes take no item after it", async () => {
    const started: number[] = [];
    await assert.rejects(
      inLanes([0, 1, 2, 3, 4, 5, 6, 7], 2, async (i) => {
        started.push(i);
        await sleep(2);
        if (i === 1) throw new Error("item 1 failed");
      }),
      /item 1 failed/,
    );
    await sleep(20);
    assert.ok(started.length <= 3, `started after the failure: ${started}`);
  });
});
