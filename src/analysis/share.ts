/**
 * A share of a walk's steps: when `count` threads split one analysis, thread `index` takes
 * steps index, index + count, index + 2·count ... Every step writes whole output chunks of
 * its own, so shares never write the same chunk and interleaving keeps them balanced.
 */
export interface Share {
  readonly index: number;
  readonly count: number;
}

/** The whole walk, as one thread does it. */
const WHOLE: Share = { index: 0, count: 1 };

/**
 * Whether step `step` (0-based, in walk order) belongs to `share`.
 * @example
 * ownsStep(5, { index: 1, count: 2 }); // true
 */
export function ownsStep(step: number, share: Share = WHOLE): boolean {
  return step % share.count === share.index;
}

/**
 * How many of `total` steps belong to `share`.
 * @example
 * ownStepCount(5, { index: 1, count: 2 }); // 2 (steps 1 and 3)
 */
export function ownStepCount(total: number, share: Share = WHOLE): number {
  return Math.max(0, Math.ceil((total - share.index) / share.count));
}
