/**
 * Password hashing with scrypt (node:crypto). Hashes are self-describing,
 * `scrypt$N$r$p$<salt>$<hash>` (base64url), so the cost can be raised later without
 * invalidating stored passwords. Hashing runs on libuv's thread pool, not the event loop.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { InvalidInputError } from "../cube/errors.js";

const COST = { N: 2 ** 15, r: 8, p: 1 };
const SALT_BYTES = 16;
const KEY_BYTES = 32;
export const MIN_PASSWORD_LENGTH = 8;
/** Long enough for any passphrase, short enough that hashing one is not a denial of service. */
export const MAX_PASSWORD_LENGTH = 1024;

interface Cost {
  N: number;
  r: number;
  p: number;
}

/**
 * Throw InvalidInputError (parameter "password") unless `password` is an acceptable new password.
 * @example
 * checkNewPassword("short"); // throws: password must be at least 8 characters
 */
export function checkNewPassword(password: unknown): asserts password is string {
  if (typeof password !== "string") throw new InvalidInputError("password is required", { parameter: "password" });
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH)
    throw new InvalidInputError(`password must be at least ${MIN_PASSWORD_LENGTH} characters (got ${length})`, { parameter: "password" });
  if (length > MAX_PASSWORD_LENGTH)
    throw new InvalidInputError(`password must be at most ${MAX_PASSWORD_LENGTH} characters`, { parameter: "password" });
}

/**
 * @example
 * const stored = await hashPassword("correct horse"); // "scrypt$32768$8$1$...$..."
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, KEY_BYTES, COST);
  return ["scrypt", COST.N, COST.r, COST.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/**
 * Compare `password` with a stored hash in constant time; false for a malformed hash.
 * @example
 * await verifyPasswordHash("correct horse", stored); // true
 */
export async function verifyPasswordHash(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed) return false;
  const key = await derive(password, parsed.salt, parsed.key.length, parsed.cost);
  return timingSafeEqual(key, parsed.key);
}

/**
 * Spend the time of one verification and answer false: used for unknown users so that
 * response times do not tell which usernames exist.
 * @example
 * if (!row) return (await burnVerification(password), undefined);
 */
export async function burnVerification(password: string): Promise<false> {
  await derive(password, DUMMY_SALT, KEY_BYTES, COST);
  return false;
}

const DUMMY_SALT = randomBytes(SALT_BYTES);

function derive(password: string, salt: Buffer, keyBytes: number, cost: Cost): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; Node's default maxmem (32 MiB) is exactly that at N=2^15, r=8.
  const maxmem = 256 * cost.N * cost.r;
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFC"), salt, keyBytes, { ...cost, maxmem }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** Bounds keep a corrupted or hostile row from asking for gigabytes of memory. */
function parseHash(stored: string): { cost: Cost; salt: Buffer; key: Buffer } | undefined {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return undefined;
  const [N, r, p] = parts.slice(1, 4).map((s) => (/^\d{1,8}$/.test(s) ? Number(s) : NaN));
  const powerOfTwo = N >= 2 && (N & (N - 1)) === 0;
  if (!powerOfTwo || N > 2 ** 20 || !(r >= 1 && r <= 32) || !(p >= 1 && p <= 16)) return undefined;
  const salt = Buffer.from(parts[4], "base64url");
  const key = Buffer.from(parts[5], "base64url");
  if (salt.length < 8 || key.length < 16 || key.length > 128) return undefined;
  return { cost: { N, r, p }, salt, key };
}
