/** Portal users: validation, scrypt hashing, verification, the last admin, the first admin. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidInputError, NotFoundError } from "../../src/cube/errors.js";
import { createFolder } from "../../src/portal/folders.js";
import { createItem } from "../../src/portal/items.js";
import { migratePortal } from "../../src/portal/schema.js";
import { createUser, ensureInitialAdmin, getUser, listUsers, removeUser, setPassword, verifyPassword } from "../../src/portal/users.js";
import { BACKENDS, tempDb } from "./tempDb.js";

const PASSWORD = "correct horse battery";

async function storedHash(db: import("../../src/store/metadataDb.js").MetadataDb, username: string): Promise<string> {
  return (await db.one<{ password_hash: string }>("SELECT password_hash FROM users WHERE username = ?", [username.toLowerCase()]))!
    .password_hash;
}

function rejectsParameter(parameter: string, type: new (...args: never[]) => Error = InvalidInputError) {
  return (e: unknown) => {
    assert.ok(e instanceof type, `expected ${type.name}, got ${String(e)}`);
    assert.equal((e as InvalidInputError).parameter, parameter);
    return true;
  };
}

for (const backend of BACKENDS)
  describe(`users (${backend})`, () => {
    it("hashes with salted scrypt: the password never appears, equal passwords differ", async () => {
      const { db, path } = await tempDb(backend);
      await createUser(db, { username: "alice", password: PASSWORD, role: "publisher" });
      await createUser(db, { username: "bob", password: PASSWORD, role: "user" });
      const a = await storedHash(db, "alice");
      const b = await storedHash(db, "bob");
      assert.match(a, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
      assert.notEqual(a, b);
      assert.ok(!a.includes(PASSWORD) && !b.includes(PASSWORD));
      if (path) {
        await db.run("PRAGMA wal_checkpoint(TRUNCATE)");
        const { readFile } = await import("node:fs/promises");
        assert.ok(!(await readFile(path)).includes(Buffer.from(PASSWORD)), "the database file never holds the password");
      }
    });

    it("verifies the right password only, case-insensitively on the username", async () => {
      const { db } = await tempDb(backend);
      await createUser(db, { username: "Alice.Smith", password: PASSWORD, role: "user", fullName: "Alice Smith", email: "a@example.org" });
      const user = await verifyPassword(db, "alice.smith", PASSWORD);
      assert.deepEqual(
        { username: user?.username, role: user?.role, fullName: user?.fullName, email: user?.email },
        { username: "Alice.Smith", role: "user", fullName: "Alice Smith", email: "a@example.org" },
      );
      assert.equal(await verifyPassword(db, "alice.smith", `${PASSWORD}!`), undefined);
      assert.equal(await verifyPassword(db, "alice.smith", ""), undefined);
      assert.equal(await verifyPassword(db, "nobody", PASSWORD), undefined);
      assert.equal(await verifyPassword(db, "bad name!", PASSWORD), undefined);
      assert.equal((await getUser(db, "ALICE.SMITH"))?.username, "Alice.Smith");
    });

    it("keeps usernames unique regardless of case", async () => {
      const { db } = await tempDb(backend);
      await createUser(db, { username: "Carol", password: PASSWORD, role: "user" });
      await assert.rejects(createUser(db, { username: "carol", password: PASSWORD, role: "user" }), rejectsParameter("username"));
    });

    it("names the parameter of bad usernames, roles, passwords and emails", async () => {
      const { db } = await tempDb(backend);
      for (const username of ["", "a".repeat(65), "has space", "semi;colon", "slash/", "é", "x\n"])
        await assert.rejects(createUser(db, { username, password: PASSWORD, role: "user" }), rejectsParameter("username"), username);
      await assert.rejects(createUser(db, { username: "ok", password: "short", role: "user" }), (e: unknown) => {
        assert.ok(e instanceof InvalidInputError && e.parameter === "password");
        assert.match(e.message, /at least 8 characters/);
        return true;
      });
      await assert.rejects(createUser(db, { username: "ok", password: "1234567", role: "user" }), rejectsParameter("password"));
      await assert.rejects(createUser(db, { username: "ok", password: PASSWORD, role: "root" as never }), rejectsParameter("role"));
      await assert.rejects(createUser(db, { username: "ok", password: PASSWORD, role: "user", email: "nope" }), rejectsParameter("email"));
      assert.equal((await listUsers(db)).length, 0);
      await createUser(db, { username: "a_b.c@d-e", password: "12345678", role: "user" });
      assert.equal((await getUser(db, "A_B.C@D-E"))?.username, "a_b.c@d-e");
    });

    it("changes passwords: the old one stops working", async () => {
      const { db } = await tempDb(backend);
      await createUser(db, { username: "dave", password: PASSWORD, role: "user" });
      const before = (await getUser(db, "dave"))!;
      await assert.rejects(setPassword(db, "dave", "short"), rejectsParameter("password"));
      await setPassword(db, "Dave", "a brand new passphrase");
      assert.equal(await verifyPassword(db, "dave", PASSWORD), undefined);
      assert.equal((await verifyPassword(db, "dave", "a brand new passphrase"))?.username, "dave");
      assert.ok((await getUser(db, "dave"))!.modified >= before.modified);
      await assert.rejects(setPassword(db, "nobody", PASSWORD), rejectsParameter("username", NotFoundError));
    });

    it("lists users and removes them, but never the last admin", async () => {
      const { db } = await tempDb(backend);
      await createUser(db, { username: "root", password: PASSWORD, role: "admin" });
      await createUser(db, { username: "erin", password: PASSWORD, role: "user" });
      assert.deepEqual(
        (await listUsers(db)).map((u) => [u.username, u.role]),
        [
          ["erin", "user"],
          ["root", "admin"],
        ],
      );
      await assert.rejects(removeUser(db, "root"), /last admin/);
      await createUser(db, { username: "root2", password: PASSWORD, role: "admin" });
      await removeUser(db, "ROOT");
      assert.equal(await getUser(db, "root"), undefined);
      await assert.rejects(removeUser(db, "root2"), rejectsParameter("username"));
      await assert.rejects(removeUser(db, "root"), rejectsParameter("username", NotFoundError));
      await removeUser(db, "erin");
      assert.deepEqual(
        (await listUsers(db)).map((u) => u.username),
        ["root2"],
      );
    });

    it("refuses to remove a user who owns items, and drops their empty folders with them", async () => {
      const { db } = await tempDb(backend);
      await createUser(db, { username: "root", password: PASSWORD, role: "admin" });
      await createUser(db, { username: "frank", password: PASSWORD, role: "publisher" });
      await createFolder(db, "frank", "empty");
      const item = await createItem(db, "frank", { title: "SST" });
      await assert.rejects(removeUser(db, "frank"), /owns 1 item/);
      await db.run("DELETE FROM items WHERE id = ?", [item.id]);
      await removeUser(db, "frank");
      assert.equal((await db.one<{ n: number }>("SELECT count(*) AS n FROM folders"))!.n, 0);
    });

    it("creates the initial admin once, with a 24-character one-time password stored only hashed", async () => {
      const { db } = await tempDb(backend);
      const password = await ensureInitialAdmin(db);
      assert.ok(password);
      assert.match(password, /^[A-Za-z0-9_-]{24}$/);
      assert.equal(await ensureInitialAdmin(db), undefined);
      assert.deepEqual(
        (await listUsers(db)).map((u) => [u.username, u.role]),
        [["admin", "admin"]],
      );
      assert.ok(!(await storedHash(db, "admin")).includes(password));
      assert.equal((await verifyPassword(db, "admin", password))?.role, "admin");
    });

    it("does not create an initial admin when any user exists", async () => {
      const { db } = await tempDb(backend);
      await createUser(db, { username: "grace", password: PASSWORD, role: "user" });
      assert.equal(await ensureInitialAdmin(db), undefined);
      assert.equal(await getUser(db, "admin"), undefined);
    });

    it("migrates idempotently", async () => {
      const { db } = await tempDb(backend);
      await migratePortal(db);
      await migratePortal(db);
      await createUser(db, { username: "henry", password: PASSWORD, role: "user" });
      assert.equal((await listUsers(db)).length, 1);
    });
  });
