/**
 * Portal tokens (generateToken): 32 random bytes, handed out once and stored only as their
 * SHA-256, with an owner, an expiry and an optional referer or IP binding.
 */
import { createHash, randomBytes } from "node:crypto";
import { InvalidInputError } from "../cube/errors.js";
import type { MetadataDb } from "../store/metadataDb.js";
import { AuthError } from "./errors.js";
import { ipKey, refererKey } from "./tokenBinding.js";
import { canonicalUsername, getUser, verifyPassword, type User } from "./users.js";

export type TokenClient = "referer" | "requestip" | "anonymous";

export interface TokenRequest {
  username: string;
  password: string;
  /** Default 60; values above two weeks are clamped to two weeks. */
  expirationMinutes?: number;
  /** Default: "referer" when a referer is given, else "anonymous" (unbound). */
  client?: TokenClient;
  referer?: string;
  /** The requesting address, for client "requestip". */
  ip?: string;
}

/** The generateToken answer, as ArcGIS shapes it. */
export interface IssuedToken {
  token: string;
  /** Epoch milliseconds. */
  expires: number;
  ssl: false;
}

/** Where a request carrying a token comes from. */
export interface TokenOrigin {
  referer?: string;
  ip?: string;
}

export const DEFAULT_TOKEN_MINUTES = 60;
export const MAX_TOKEN_MINUTES = 14 * 24 * 60;
const CLIENTS: readonly TokenClient[] = ["referer", "requestip", "anonymous"];
/** Our tokens are 43 characters; anything far longer is not worth hashing. */
const MAX_TOKEN_LENGTH = 256;

interface TokenRow {
  username: string;
  expires: number;
  client: TokenClient;
  bound_to: string | null;
}

/**
 * Check credentials and issue a token. Bad credentials throw AuthError 400 ("Unable to
 * generate token.", details "Invalid username or password."); bad options InvalidInputError.
 * @example
 * const { token, expires } = await generateToken(db, { username: "alice", password, client: "referer", referer: "https://app.example" });
 */
export async function generateToken(db: MetadataDb, request: TokenRequest, now: number = Date.now()): Promise<IssuedToken> {
  const minutes = expirationMinutes(request.expirationMinutes);
  const { client, boundTo } = binding(request);
  const user = await verifyPassword(db, request.username, request.password);
  if (!user) throw new AuthError(400, "Unable to generate token.", { details: ["Invalid username or password."] });
  const token = randomBytes(32).toString("base64url");
  const expires = now + Math.round(minutes * 60_000);
  await db.transaction(async (tx) => {
    // Keeps the table bounded even when no one schedules purgeExpiredTokens.
    await purgeExpiredTokens(tx, now);
    await tx.run("INSERT INTO tokens (hash, username, created, expires, client, bound_to) VALUES (?, ?, ?, ?, ?, ?)", [
      hashToken(token),
      canonicalUsername(user.username),
      now,
      expires,
      client,
      boundTo ?? null,
    ]);
  });
  return { token, expires, ssl: false };
}

/**
 * The user a token stands for, or AuthError 498 when it is unknown, expired, revoked or
 * presented from another referer or address than it was bound to.
 * @example
 * const user = await resolveToken(db, token, { referer: req.headers.referer, ip: req.ip });
 */
export async function resolveToken(db: MetadataDb, token: string, origin: TokenOrigin = {}, now: number = Date.now()): Promise<User> {
  return (await checkToken(db, token, origin, now)).user;
}

/**
 * A server token for a portal token (ArcGIS clients ask the portal's generateToken with
 * `token` and `serverUrl` for each federated server). Portal and server are one system
 * here, so the answer is the same token and its expiry; it is checked as any token is.
 * @example
 * const { token, expires } = await exchangeToken(db, portalToken, { referer });
 */
export async function exchangeToken(
  db: MetadataDb,
  token: string,
  origin: TokenOrigin = {},
  now: number = Date.now(),
): Promise<IssuedToken> {
  const { expires } = await checkToken(db, token, origin, now);
  return { token, expires, ssl: false };
}

async function checkToken(db: MetadataDb, token: string, origin: TokenOrigin, now: number): Promise<{ user: User; expires: number }> {
  if (typeof token !== "string" || token.length === 0 || token.length > MAX_TOKEN_LENGTH) throw invalid();
  const row = await db.one<TokenRow>("SELECT username, expires, client, bound_to FROM tokens WHERE hash = ?", [hashToken(token)]);
  if (!row) throw invalid();
  if (row.expires <= now) throw invalid("Token has expired.");
  if (row.client === "referer" && (origin.referer === undefined || refererKey(origin.referer) !== row.bound_to))
    throw invalid("The token is bound to another referer.");
  if (row.client === "requestip" && (origin.ip === undefined || ipKey(origin.ip) !== row.bound_to))
    throw invalid("The token is bound to another address.");
  const user = await getUser(db, row.username);
  if (!user) throw invalid();
  return { user, expires: row.expires };
}

/**
 * Invalidate every token of a user (sign out everywhere); returns how many there were.
 * @example
 * await revokeTokens(db, "alice"); // 2
 */
export async function revokeTokens(db: MetadataDb, username: string): Promise<number> {
  return db.run("DELETE FROM tokens WHERE username = ?", [canonicalUsername(username)]);
}

/**
 * Delete tokens expired at `now`; returns how many.
 * @example
 * setInterval(() => void purgeExpiredTokens(db).catch(console.error), 3_600_000).unref();
 */
export function purgeExpiredTokens(db: MetadataDb, now: number = Date.now()): Promise<number> {
  return db.run("DELETE FROM tokens WHERE expires <= ?", [now]);
}

function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

function invalid(detail?: string): AuthError {
  return new AuthError(498, "Invalid token.", detail ? { details: [detail] } : undefined);
}

function expirationMinutes(value: number | undefined): number {
  if (value === undefined) return DEFAULT_TOKEN_MINUTES;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0)
    throw new InvalidInputError(`expiration must be a positive number of minutes (got ${JSON.stringify(value)})`, {
      parameter: "expiration",
    });
  return Math.min(value, MAX_TOKEN_MINUTES);
}

function binding(request: TokenRequest): { client: TokenClient; boundTo?: string } {
  const referer = nonEmpty(request.referer);
  const ip = nonEmpty(request.ip);
  const client = request.client ?? (referer !== undefined ? "referer" : "anonymous");
  if (!CLIENTS.includes(client))
    throw new InvalidInputError(`client must be one of ${CLIENTS.join(", ")} (got ${JSON.stringify(client)})`, { parameter: "client" });
  if (client === "referer") {
    if (referer === undefined) throw new InvalidInputError("client=referer needs a referer", { parameter: "referer" });
    return { client, boundTo: refererKey(referer) };
  }
  if (client === "requestip") {
    if (ip === undefined) throw new InvalidInputError("client=requestip needs the request's address", { parameter: "ip" });
    return { client, boundTo: ipKey(ip) };
  }
  return { client };
}

function nonEmpty(value: string | undefined): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}
