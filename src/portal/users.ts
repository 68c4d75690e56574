/**
 * Portal users: roles, passwords (see password.ts), the first admin. Usernames are matched
 * case-insensitively and shown as they were first typed.
 */
import { randomBytes } from "node:crypto";
import { InvalidInputError, NotFoundError } from "../cube/errors.js";
import type { MetadataDb } from "../store/metadataDb.js";
import { isUniqueViolation } from "../store/sqlDb.js";
import { burnVerification, checkNewPassword, hashPassword, verifyPasswordHash } from "./password.js";

/** publisher may run analysis; admin may do anything. */
export type Role = "admin" | "publisher" | "user";
export const ROLES: readonly Role[] = ["admin", "publisher", "user"];

export interface User {
  /** As typed at creation; compare with sameUsername(), never ===. */
  readonly username: string;
  readonly role: Role;
  readonly fullName?: string;
  readonly email?: string;
  /** Epoch milliseconds. */
  readonly created: number;
  readonly modified: number;
}

export interface NewUser {
  username: string;
  password: string;
  role: Role;
  fullName?: string;
  email?: string;
}

export const USERNAME_PATTERN = /^[A-Za-z0-9_.@-]{1,64}$/;
const INITIAL_ADMIN = "admin";

interface UserRow {
  username: string;
  display_name: string;
  role: Role;
  full_name: string | null;
  email: string | null;
  password_hash: string;
  created: number;
  modified: number;
}

/**
 * The key a username is stored and compared under; throws InvalidInputError (parameter
 * "username") for a name that could never exist.
 * @example
 * canonicalUsername("Alice.Smith"); // "alice.smith"
 */
export function canonicalUsername(username: unknown): string {
  if (typeof username !== "string" || !USERNAME_PATTERN.test(username))
    throw new InvalidInputError(
      `username must be 1 to 64 letters, digits, '_', '.', '@' or '-' (got ${JSON.stringify(String(username).slice(0, 80))})`,
      { parameter: "username" },
    );
  return username.toLowerCase();
}

/**
 * @example
 * sameUsername("Alice", "alice"); // true
 */
export function sameUsername(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/**
 * @example
 * const alice = await createUser(db, { username: "Alice", password: "s3cret-enough", role: "publisher" });
 */
export async function createUser(db: MetadataDb, fields: NewUser): Promise<User> {
  const key = canonicalUsername(fields.username);
  checkRole(fields.role);
  const fullName = optionalText(fields.fullName, "fullName", 256);
  const email = optionalEmail(fields.email);
  checkNewPassword(fields.password);
  if (await getUserRow(db, key)) throw duplicate(fields.username);
  const hash = await hashPassword(fields.password);
  const now = Date.now();
  try {
    await db.run(
      `INSERT INTO users (username, display_name, role, full_name, email, password_hash, created, modified)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      [key, fields.username, fields.role, fullName ?? null, email ?? null, hash, now, now],
    );
  } catch (e) {
    // Another writer took the name while we were hashing.
    if (isUniqueViolation(e)) throw duplicate(fields.username);
    throw e;
  }
  return (await getUser(db, key))!;
}

/**
 * @example
 * (await getUser(db, "ALICE"))?.role; // "publisher"
 */
export async function getUser(db: MetadataDb, username: string): Promise<User | undefined> {
  if (typeof username !== "string" || !USERNAME_PATTERN.test(username)) return undefined;
  const row = await getUserRow(db, username.toLowerCase());
  return row && toUser(row);
}

/**
 * @example
 * (await listUsers(db)).map((u) => u.username); // ["admin", "Alice"]
 */
export async function listUsers(db: MetadataDb): Promise<User[]> {
  return (await db.all<UserRow>("SELECT * FROM users ORDER BY username")).map(toUser);
}

/**
 * The user, when `password` is theirs; undefined otherwise (unknown user included, after the
 * same amount of work, so timing does not reveal which names exist).
 * @example
 * const user = await verifyPassword(db, "alice", "s3cret-enough");
 */
export async function verifyPassword(db: MetadataDb, username: string, password: string): Promise<User | undefined> {
  if (typeof password !== "string" || password.length > 4 * 1024) return undefined;
  const row = typeof username === "string" && USERNAME_PATTERN.test(username) ? await getUserRow(db, username.toLowerCase()) : undefined;
  if (!row) return void (await burnVerification(password));
  return (await verifyPasswordHash(password, row.password_hash)) ? toUser(row) : undefined;
}

/**
 * Replace a user's password and revoke their tokens, so a leaked password stops working
 * everywhere at once.
 * @example
 * await setPassword(db, "alice", "a new passphrase");
 */
export async function setPassword(db: MetadataDb, username: string, password: string): Promise<void> {
  const key = (await requireUserRow(db, username)).username;
  checkNewPassword(password);
  const hash = await hashPassword(password);
  await db.transaction(async (tx) => {
    const changed = await tx.run("UPDATE users SET password_hash = ?, modified = ? WHERE username = ?", [hash, Date.now(), key]);
    if (changed === 0) throw notFound(username);
    await tx.run("DELETE FROM tokens WHERE username = ?", [key]);
  });
}

/**
 * Remove a user, their tokens and their (empty) folders. Refused for the last admin and for
 * a user who still owns items: their services would be left without an owner.
 * @example
 * await removeUser(db, "bob");
 */
export async function removeUser(db: MetadataDb, username: string): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await requireUserRow(tx, username);
    if (row.role === "admin" && (await countAdmins(tx)) <= 1)
      throw new InvalidInputError(`${row.display_name} is the last admin and cannot be removed; make another admin first`, {
        parameter: "username",
      });
    const items = (await tx.one<{ n: number }>("SELECT count(*) AS n FROM items WHERE owner = ?", [row.username]))!.n;
    if (items > 0)
      throw new InvalidInputError(`${row.display_name} still owns ${items} item(s); delete them before removing the user`, {
        parameter: "username",
      });
    await tx.run("DELETE FROM users WHERE username = ?", [row.username]);
  });
}

/**
 * On first start: when there is no user at all, create `admin` with a random one-time
 * password and return it for the caller to print once (it is stored only hashed). Returns
 * undefined when any user exists.
 * @example
 * const password = await ensureInitialAdmin(db);
 * if (password) console.log(`admin password (shown once): ${password}`);
 */
export async function ensureInitialAdmin(db: MetadataDb): Promise<string | undefined> {
  if ((await countUsers(db)) > 0) return undefined;
  const password = randomBytes(18).toString("base64url"); // 24 characters
  const hash = await hashPassword(password);
  const created = await db.transaction(async (tx) => {
    // Re-checked under the write lock: two servers starting at once make one admin.
    if ((await countUsers(tx)) > 0) return false;
    const now = Date.now();
    await tx.run(`INSERT INTO users (username, display_name, role, password_hash, created, modified) VALUES (?, ?, 'admin', ?, ?, ?)`, [
      INITIAL_ADMIN,
      INITIAL_ADMIN,
      hash,
      now,
      now,
    ]);
    return true;
  });
  return created ? password : undefined;
}

function getUserRow(db: MetadataDb, key: string): Promise<UserRow | undefined> {
  return db.one<UserRow>("SELECT * FROM users WHERE username = ?", [key]);
}

async function requireUserRow(db: MetadataDb, username: string): Promise<UserRow> {
  const row = typeof username === "string" && USERNAME_PATTERN.test(username) ? await getUserRow(db, username.toLowerCase()) : undefined;
  if (!row) throw notFound(username);
  return row;
}

async function countUsers(db: MetadataDb): Promise<number> {
  return (await db.one<{ n: number }>("SELECT count(*) AS n FROM users"))!.n;
}

async function countAdmins(db: MetadataDb): Promise<number> {
  return (await db.one<{ n: number }>("SELECT count(*) AS n FROM users WHERE role = 'admin'"))!.n;
}

function toUser(row: UserRow): User {
  return {
    username: row.display_name,
    role: row.role,
    ...(row.full_name === null ? {} : { fullName: row.full_name }),
    ...(row.email === null ? {} : { email: row.email }),
    created: row.created,
    modified: row.modified,
  };
}

function checkRole(role: unknown): asserts role is Role {
  if (!ROLES.includes(role as Role))
    throw new InvalidInputError(`role must be one of ${ROLES.join(", ")} (got ${JSON.stringify(role)})`, { parameter: "role" });
}

function optionalText(value: unknown, parameter: string, max: number): string | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string" || value.length > max || /[\p{Cc}]/u.test(value))
    throw new InvalidInputError(`${parameter} must be text of at most ${max} characters without control characters`, { parameter });
  return value.trim() || undefined;
}

function optionalEmail(value: unknown): string | undefined {
  const email = optionalText(value, "email", 254);
  if (email !== undefined && !/^[^\s@]+@[^\s@]+$/.test(email))
    throw new InvalidInputError(`email must look like name@host (got ${JSON.stringify(email)})`, { parameter: "email" });
  return email;
}

function duplicate(username: string): InvalidInputError {
  return new InvalidInputError(`a user named ${username} already exists (usernames are case-insensitive)`, { parameter: "username" });
}

function notFound(username: string): NotFoundError {
  return new NotFoundError(`no user named ${JSON.stringify(String(username).slice(0, 80))}`, { parameter: "username" });
}
