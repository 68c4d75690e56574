/** Portal tokens: generate/resolve, expiry, client binding, hashed storage, revoke, purge. */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { before, describe, it } from "node:test";
import { InvalidInputError } from "../../src/cube/errors.js";
import { AuthError } from "../../src/portal/errors.js";
import { ipKey, refererKey } from "../../src/portal/tokenBinding.js";
import {
  DEFAULT_TOKEN_MINUTES,
  generateToken,
  MAX_TOKEN_MINUTES,
  purgeExpiredTokens,
  resolveToken,
  revokeTokens,
} from "../../src/portal/tokens.js";
import { createUser, removeUser, setPassword } from "../../src/portal/users.js";
import type { MetadataDb } from "../../src/store/metadataDb.js";
import { BACKENDS, tempDb } from "./tempDb.js";

const PASSWORD = "correct horse battery";
const T0 = Date.UTC(2030, 0, 1);
const MINUTE = 60_000;

function authError(code: number, detail?: RegExp) {
  return (e: unknown) => {
    assert.ok(e instanceof AuthError, `expected AuthError, got ${String(e)}`);
    assert.equal(e.code, code);
    if (code === 498) assert.equal(e.message, "Invalid token.");
    if (detail) assert.match(e.details.join(" "), detail);
    return true;
  };
}

async function tokenCount(db: MetadataDb, username: string): Promise<number> {
  return (await db.one<{ n: number }>("SELECT count(*) AS n FROM tokens WHERE username = ?", [username]))!.n;
}

for (const backend of BACKENDS)
  describe(`tokens (${backend})`, () => {
    let db: MetadataDb;
    let dbPath: string | undefined;

    before(async () => {
      ({ db, path: dbPath } = await tempDb(backend));
      await createUser(db, { username: "root", password: PASSWORD, role: "admin" });
      await createUser(db, { username: "Alice", password: PASSWORD, role: "publisher" });
      await createUser(db, { username: "bob", password: PASSWORD, role: "user" });
    });

    describe("generateToken / resolveToken", () => {
      it("issues a token that resolves to its user until it expires", async () => {
        const issued = await generateToken(db, { username: "alice", password: PASSWORD }, T0);
        assert.match(issued.token, /^[A-Za-z0-9_-]{43}$/);
        assert.equal(issued.ssl, false);
        assert.equal(issued.expires, T0 + DEFAULT_TOKEN_MINUTES * MINUTE);
        const user = await resolveToken(db, issued.token, {}, T0 + 1);
        assert.deepEqual([user.username, user.role], ["Alice", "publisher"]);
        await resolveToken(db, issued.token, {}, issued.expires - 1);
        await assert.rejects(resolveToken(db, issued.token, {}, issued.expires), authError(498, /expired/));
      });

      it("honours and clamps the expiration, and refuses nonsense", async () => {
        const short = await generateToken(db, { username: "alice", password: PASSWORD, expirationMinutes: 5 }, T0);
        assert.equal(short.expires, T0 + 5 * MINUTE);
        const long = await generateToken(db, { username: "alice", password: PASSWORD, expirationMinutes: 10 * MAX_TOKEN_MINUTES }, T0);
        assert.equal(long.expires, T0 + 14 * 24 * 60 * MINUTE);
        for (const expirationMinutes of [0, -5, NaN, Infinity, "60" as unknown as number])
          await assert.rejects(
            generateToken(db, { username: "alice", password: PASSWORD, expirationMinutes }, T0),
            (e: unknown) => e instanceof InvalidInputError && e.parameter === "expiration",
          );
      });

      it("answers bad credentials with code 400 'Unable to generate token.'", async () => {
        for (const [username, password] of [
          ["alice", "wrong password"],
          ["nobody", PASSWORD],
          ["not valid!", PASSWORD],
        ])
          await assert.rejects(generateToken(db, { username, password }, T0), (e: unknown) => {
            assert.ok(e instanceof AuthError);
            assert.equal(e.code, 400);
            assert.equal(e.message, "Unable to generate token.");
            assert.deepEqual(e.details, ["Invalid username or password."]);
            return true;
          });
      });

      it("refuses unknown, empty and oversized tokens with 498", async () => {
        for (const token of ["", "x", "A".repeat(43), "A".repeat(10_000)])
          await assert.rejects(resolveToken(db, token, {}, T0), authError(498));
      });

      it("binds referer tokens to the referer's host", async () => {
        const { token } = await generateToken(
          db,
          { username: "bob", password: PASSWORD, client: "referer", referer: "https://app.example" },
          T0,
        );
        for (const referer of ["https://app.example", "https://app.example/maps/index.html?x=1", "app.example", "https://APP.example/"])
          assert.equal((await resolveToken(db, token, { referer }, T0)).username, "bob", referer);
        for (const referer of [undefined, "https://evil.example", "https://app.example:8443/", "https://app.example.evil.test/"])
          await assert.rejects(resolveToken(db, token, { referer }, T0), authError(498, referer ? /referer/ : undefined), String(referer));
      });

      it("binds the Node client's literal referer exactly, and defaults to referer binding when one is given", async () => {
        const { token } = await generateToken(db, { username: "bob", password: PASSWORD, referer: "@esri/arcgis-rest-js" }, T0);
        assert.equal((await resolveToken(db, token, { referer: "@esri/arcgis-rest-js" }, T0)).username, "bob");
        await assert.rejects(resolveToken(db, token, { referer: "@esri/other" }, T0), authError(498));
        await assert.rejects(resolveToken(db, token, {}, T0), authError(498));
      });

      it("binds requestip tokens to the address, IPv4-mapped or not", async () => {
        const { token } = await generateToken(db, { username: "bob", password: PASSWORD, client: "requestip", ip: "::ffff:192.0.2.7" }, T0);
        assert.equal((await resolveToken(db, token, { ip: "192.0.2.7" }, T0)).username, "bob");
        assert.equal((await resolveToken(db, token, { ip: "::ffff:192.0.2.7", referer: "anything" }, T0)).username, "bob");
        await assert.rejects(resolveToken(db, token, { ip: "192.0.2.8" }, T0), authError(498, /address/));
        await assert.rejects(resolveToken(db, token, {}, T0), authError(498));
      });

      it("leaves anonymous-client tokens unbound", async () => {
        const { token } = await generateToken(
          db,
          { username: "bob", password: PASSWORD, client: "anonymous", referer: "https://x.example" },
          T0,
        );
        assert.equal((await resolveToken(db, token, { referer: "https://y.example", ip: "10.0.0.1" }, T0)).username, "bob");
      });

      it("requires what a binding needs, and a known client", async () => {
        const base = { username: "bob", password: PASSWORD };
        await assert.rejects(
          generateToken(db, { ...base, client: "referer" }, T0),
          (e: unknown) => (e as InvalidInputError).parameter === "referer",
        );
        await assert.rejects(
          generateToken(db, { ...base, client: "requestip" }, T0),
          (e: unknown) => (e as InvalidInputError).parameter === "ip",
        );
        await assert.rejects(
          generateToken(db, { ...base, client: "ip" as never }, T0),
          (e: unknown) => (e as InvalidInputError).parameter === "client",
        );
      });

      it("stores only a hash: neither the table nor the database file holds the token text", async () => {
        const { token } = await generateToken(db, { username: "alice", password: PASSWORD }, T0);
        const rows = await db.all("SELECT * FROM tokens");
        assert.ok(rows.length > 0);
        for (const row of rows) for (const value of Object.values(row)) assert.ok(!String(value).includes(token));
        const hex = (rows.map((r) => r.hash) as string[]).every((h) => /^[0-9a-f]{64}$/.test(h));
        assert.ok(hex);
        if (dbPath) {
          await db.run("PRAGMA wal_checkpoint(TRUNCATE)");
          assert.ok(!(await readFile(dbPath)).includes(Buffer.from(token)));
        }
      });
    });

    describe("revoking and purging tokens", () => {
      it("revokes every token of a user, and only theirs", async () => {
        const a1 = await generateToken(db, { username: "alice", password: PASSWORD }, T0);
        const a2 = await generateToken(db, { username: "ALICE", password: PASSWORD }, T0);
        const b = await generateToken(db, { username: "bob", password: PASSWORD }, T0);
        assert.ok((await revokeTokens(db, "Alice")) >= 2);
        assert.equal(await tokenCount(db, "alice"), 0);
        for (const { token } of [a1, a2]) await assert.rejects(resolveToken(db, token, {}, T0), authError(498));
        assert.equal((await resolveToken(db, b.token, {}, T0)).username, "bob");
      });

      it("revokes a user's tokens when their password changes or they are removed", async () => {
        const { token } = await generateToken(db, { username: "bob", password: PASSWORD }, T0);
        await setPassword(db, "bob", "another long password");
        await assert.rejects(resolveToken(db, token, {}, T0), authError(498));
        await createUser(db, { username: "temp", password: PASSWORD, role: "user" });
        const temp = await generateToken(db, { username: "temp", password: PASSWORD }, T0);
        await removeUser(db, "temp");
        await assert.rejects(resolveToken(db, temp.token, {}, T0), authError(498));
        assert.equal(await tokenCount(db, "temp"), 0);
      });

      it("purges expired tokens and keeps live ones", async () => {
        await revokeTokens(db, "root");
        const soon = await generateToken(db, { username: "root", password: PASSWORD, expirationMinutes: 1 }, T0);
        const later = await generateToken(db, { username: "root", password: PASSWORD, expirationMinutes: 120 }, T0);
        assert.equal(await tokenCount(db, "root"), 2);
        assert.ok((await purgeExpiredTokens(db, T0 + 2 * MINUTE)) >= 1);
        assert.equal(await tokenCount(db, "root"), 1);
        await assert.rejects(resolveToken(db, soon.token, {}, T0), authError(498));
        assert.equal((await resolveToken(db, later.token, {}, T0 + 2 * MINUTE)).username, "root");
        assert.ok((await purgeExpiredTokens(db, T0 + 121 * MINUTE)) >= 1);
        assert.equal(await tokenCount(db, "root"), 0);
      });
    });
  });

describe("binding keys", () => {
  it("reduce URLs and hosts to the host and keep other referers literal", () => {
    assert.equal(refererKey("https://App.Example:8443/a/b?c"), "app.example:8443");
    assert.equal(refererKey("http://app.example"), "app.example");
    assert.equal(refererKey("app.example/"), "app.example");
    assert.equal(refererKey("localhost:3000"), "localhost:3000");
    assert.equal(refererKey("@esri/arcgis-rest-js"), "@esri/arcgis-rest-js");
    assert.equal(ipKey("::FFFF:10.1.2.3"), "10.1.2.3");
    assert.equal(ipKey("2001:db8::1"), "2001:db8::1");
  });
});
