/**
 * Dataset ids: 26 characters of lower-case Crockford base32, a 48-bit millisecond timestamp
 * (10 chars) followed by 80 random bits (16 chars), as in ULID. They sort by creation time,
 * are safe in URLs and file names on case-insensitive file systems, and the strict pattern
 * means no id can ever name `.`, `..`, a separator or anything outside the store.
 */

import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const TIME_CHARS = 10;
const RANDOM_CHARS = 16;
const RANDOM_MAX = (1n << 80n) - 1n;

/** Exactly what `newDatasetId()` produces; anything else is refused before touching disk. */
export const DATASET_ID_PATTERN = /^[0-9a-hjkmnp-tv-z]{26}$/;

// Ids made in the same millisecond by this process get random + 1 rather than fresh random,
// so they still sort in creation order (ULID's monotonic variant).
let lastTime = -1;
let lastRandom = 0n;

/**
 * A new, unique, time-sortable dataset id.
 *
 * @example
 * const id = newDatasetId(); // "01j9z3k8m2x7c4v5b6n8p9q0rs"
 * isDatasetId(id); // true
 */
export function newDatasetId(): string {
  // max(): a clock stepped backwards must not produce an id that sorts before earlier ones.
  let time = Math.max(Date.now(), lastTime);
  let random: bigint;
  if (time === lastTime) {
    random = lastRandom + 1n;
    // 2^80 ids in one millisecond will not happen, but never wrap into a smaller id.
    if (random > RANDOM_MAX) {
      time += 1;
      random = freshRandom();
    }
  } else {
    random = freshRandom();
  }
  lastTime = time;
  lastRandom = random;
  return encode(BigInt(time), TIME_CHARS) + encode(random, RANDOM_CHARS);
}

/**
 * Whether `text` is a well-formed dataset id (it may still not exist).
 *
 * @example
 * isDatasetId("../etc"); // false
 */
export function isDatasetId(text: string): boolean {
  return DATASET_ID_PATTERN.test(text);
}

/**
 * The creation time (epoch ms) encoded in a dataset id, or undefined if `id` is malformed.
 * Lets sweeps judge the age of a leftover without trusting file-system timestamps.
 *
 * @example
 * datasetIdTime(newDatasetId()); // Date.now() when it was made
 */
export function datasetIdTime(id: string): number | undefined {
  if (!isDatasetId(id)) return undefined;
  let time = 0;
  for (const ch of id.slice(0, TIME_CHARS)) time = time * 32 + ALPHABET.indexOf(ch);
  return time;
}

function freshRandom(): bigint {
  return BigInt("0x" + randomBytes(10).toString("hex"));
}

function encode(value: bigint, chars: number): string {
  let out = "";
  for (let i = 0; i < chars; i++) {
    out = ALPHABET[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}
