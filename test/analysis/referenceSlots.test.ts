/**
 * The reference of a streamed anomaly's pass 1 held a few groups at a time
 * (analysis/referenceSlots.ts): as many slots as the most groups a run spans; a group is
 * read when a run needs it and it is not held, into the slot least recently used by groups
 * the run does not need; what each slot holds is the group's µ and s as the source gives them.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type ReferenceSource, ReferenceSlots, referenceSlotCount } from "../../src/analysis/referenceSlots.js";

const PIXELS = 3;

/** µ of group g at pixel p is 10g + p, s is 100g + p; every read recorded. */
function source(reads: number[], withSd = true): ReferenceSource {
  return {
    groups: 12,
    withSd,
    async readGroup(group, mean, sd) {
      reads.push(group);
      for (let p = 0; p < PIXELS; p++) {
        mean[p] = 10 * group + p;
        if (sd) sd[p] = 100 * group + p;
      }
    },
  };
}

describe("the reference held a few groups at a time", () => {
  it("has as many slots as the most groups one run spans, at most all of them", () => {
    // Daily slices, months of 3 days for short: groups 0 0 0 1 1 1 2 2 2 3 ...
    const groups = Int32Array.from({ length: 36 }, (_, t) => Math.floor(t / 3) % 12);
    assert.equal(
      referenceSlotCount(
        groups,
        [
          [0, 3],
          [3, 6],
        ],
        12,
      ),
      1,
      "runs within a month",
    );
    assert.equal(
      referenceSlotCount(
        groups,
        [
          [0, 4],
          [4, 8],
          [8, 12],
        ],
        12,
      ),
      2,
      "runs across a month's end",
    );
    assert.equal(referenceSlotCount(groups, [[0, 8]], 12), 3, "a run over three months");
    assert.equal(referenceSlotCount(groups, [[0, 36]], 12), 12, "a run over every group");
    assert.equal(referenceSlotCount(groups, [[0, 36]], 5), 5, "never more than the groups");
  });

  it("reads a group when a run needs it and it is not held, giving up the least recently used slot", async () => {
    const reads: number[] = [];
    const mean = new Float64Array(2 * PIXELS);
    const sd = new Float64Array(2 * PIXELS);
    const slots = new ReferenceSlots(source(reads), mean, sd, PIXELS, 2);
    const holds = (g: number) => {
      const s = slots.slotOf(g);
      assert.deepEqual(Array.from(mean.subarray(s * PIXELS, (s + 1) * PIXELS)), [10 * g, 10 * g + 1, 10 * g + 2], `µ of group ${g}`);
      assert.deepEqual(Array.from(sd.subarray(s * PIXELS, (s + 1) * PIXELS)), [100 * g, 100 * g + 1, 100 * g + 2], `s of group ${g}`);
    };
    await slots.hold([0, 0, 1]);
    holds(0);
    holds(1);
    await slots.hold([1, 1]);
    await slots.hold([1, 2]);
    holds(1);
    holds(2);
    assert.equal(slots.slotOf(2), 0, "group 0's slot, the least recently used, not group 1's");
    await slots.hold([2, 0]);
    holds(2);
    holds(0);
    assert.deepEqual(reads, [0, 1, 2, 0], "each group read only when not held");
    assert.throws(() => slots.slotOf(1), RangeError, "given up");
    await assert.rejects(slots.hold([3, 4, 5]), RangeError, "a run spanning more groups than slots");
  });

  it("holds µ alone for the methods without s", async () => {
    const reads: number[] = [];
    const mean = new Float64Array(PIXELS);
    const slots = new ReferenceSlots(source(reads, false), mean, undefined, PIXELS, 1);
    await slots.hold([7]);
    assert.deepEqual(Array.from(mean), [70, 71, 72]);
    await slots.hold([8]);
    assert.deepEqual(Array.from(mean), [80, 81, 82]);
    assert.deepEqual(reads, [7, 8]);
  });
});
