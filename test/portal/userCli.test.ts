/** `strata user`, run in-process through the command object with a capturing output. */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { InvalidInputError } from "../../src/cube/errors.js";
import { makeUserCommand, userCommand } from "../../src/cli/user.js";
import { openPortalDb } from "../../src/portal/schema.js";
import { getUser, verifyPassword } from "../../src/portal/users.js";
import type { MetadataDatabase } from "../../src/store/metadataDb.js";
import { freshMetadata, testPostgres } from "../helpers/metadataBackends.js";
import { tempDir } from "./tempDb.js";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(env: Record<string, string>, ...args: string[]): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const code = await makeUserCommand(env).run(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

/** Open the CLI's database to check what it did. */
async function inspect<T>(target: string, read: (db: MetadataDatabase) => Promise<T>): Promise<T> {
  const db = await openPortalDb(target.includes("://") ? target : join(target, "strata.db"));
  try {
    return await read(db);
  } finally {
    await db.close();
  }
}

describe("strata user", () => {
  it("has a usage text covering every subcommand and option", () => {
    for (const word of [
      "add",
      "passwd",
      "list",
      "remove",
      "--role",
      "--password",
      "STRATA_PASSWORD",
      "--data-dir",
      "STRATA_DATA_DIR",
      "--json",
    ])
      assert.ok(userCommand.usage.includes(word), word);
    assert.match(userCommand.usage, /^Usage: strata user/);
  });

  it("adds, lists, changes passwords and removes users in a created data dir", async () => {
    const dataDir = join(await tempDir(), "nested", "data");
    const add = await run({}, "add", "Root", "--role", "admin", "--password", "root password!", "--data-dir", dataDir);
    assert.equal(add.code, 0);
    assert.equal(add.stdout, "created user Root (admin)\n");
    assert.equal(add.stderr, "");
    assert.ok(existsSync(join(dataDir, "strata.db")));

    // The data dir from the environment, the password from STRATA_PASSWORD.
    const env = { STRATA_DATA_DIR: dataDir, STRATA_PASSWORD: "alice password" };
    const alice = await run(env, "add", "alice", "--role", "publisher", "--full-name", "Alice Smith", "--email", "alice@example.org");
    assert.equal(alice.stdout, "created user alice (publisher)\n");
    assert.equal(await inspect(dataDir, async (db) => (await verifyPassword(db, "alice", "alice password"))?.fullName), "Alice Smith");

    const table = await run(env, "list");
    const lines = table.stdout.trimEnd().split("\n");
    assert.match(lines[0], /^USERNAME\s+ROLE\s+FULL NAME\s+EMAIL\s+CREATED$/);
    assert.match(lines[1], /^alice\s+publisher\s+Alice Smith\s+alice@example\.org\s+\d{4}-\d\d-\d\dT/);
    assert.match(lines[2], /^Root\s+admin\s+\d{4}-/);
    const json = JSON.parse((await run(env, "list", "--json")).stdout) as { username: string; role: string; created: number }[];
    assert.deepEqual(
      json.map((u) => [u.username, u.role, typeof u.created]),
      [
        ["alice", "publisher", "number"],
        ["Root", "admin", "number"],
      ],
    );
    assert.ok(!JSON.stringify(json).includes("scrypt"), "no hash in the listing");

    const passwd = await run({ ...env, STRATA_PASSWORD: "a new alice password" }, "passwd", "ALICE");
    assert.equal(passwd.code, 0);
    assert.ok(await inspect(dataDir, (db) => verifyPassword(db, "alice", "a new alice password")));

    assert.equal((await run(env, "remove", "alice")).stdout, "removed user alice\n");
    assert.equal(await inspect(dataDir, (db) => getUser(db, "alice")), undefined);
    await assert.rejects(run(env, "remove", "root"), /last admin/);
  });

  it("manages the users of a PostgreSQL metadata database (--metadata, STRATA_METADATA), never printing its password", async () => {
    const { target } = await freshMetadata("postgres");
    const { password } = await testPostgres();
    const add = await run({ STRATA_PASSWORD: "root password!" }, "add", "Root", "--role", "admin", "--metadata", target);
    assert.equal(add.stdout, "created user Root (admin)\n");
    const listed = await run({ STRATA_METADATA: target }, "list", "--json");
    assert.deepEqual(
      (JSON.parse(listed.stdout) as { username: string }[]).map((u) => u.username),
      ["Root"],
    );
    assert.equal((await inspect(target, (db) => getUser(db, "root")))?.role, "admin");
    const bad = target.replace(/\/[^/]*$/, "/no_such_database");
    await assert.rejects(run({}, "list", "--metadata", bad), (e: unknown) => {
      assert.ok(e instanceof InvalidInputError && e.parameter === "metadata", String(e));
      assert.match(e.message, /no_such_database/);
      assert.ok(!e.message.includes(password), "the password is not in the error");
      return true;
    });
    await assert.rejects(run({}, "list", "--metadata", "mysql://u:p@h/db"), /must be a PostgreSQL URL/);
  });

  it("warns when the users it creates leave the portal without an admin", async () => {
    const dataDir = await tempDir();
    const r = await run({ STRATA_PASSWORD: "bob password" }, "add", "bob", "--role", "user", "--data-dir", dataDir);
    assert.equal(r.code, 0);
    assert.match(r.stderr, /no admin/);
  });

  it("refuses missing or misplaced arguments with a clear error", async () => {
    const dataDir = await tempDir();
    const env = { STRATA_DATA_DIR: dataDir };
    const refusals: [string[], RegExp, string?][] = [
      [[], /expected add, passwd, list or remove/],
      [["frobnicate"], /expected add, passwd, list or remove/],
      [["toString"], /expected add, passwd, list or remove/],
      [["add", "carol", "--password", "carol password"], /--role is required/, "role"],
      [["add", "carol", "--role", "user"], /STRATA_PASSWORD/, "password"],
      [["add", "carol", "--role", "user", "--password", "short"], /at least 8 characters/, "password"],
      [["add", "carol", "--role", "boss", "--password", "carol password"], /role must be one of/, "role"],
      [["add", "bad name", "--role", "user", "--password", "carol password"], /username must be/, "username"],
      [["add", "--role", "user", "--password", "carol password"], /takes one username/],
      [["list", "--role", "user"], /--role does not apply/],
      [["list", "extra"], /takes no argument/],
      [["passwd", "nobody", "--password", "long enough"], /no user named/, "username"],
    ];
    for (const [args, message, parameter] of refusals)
      await assert.rejects(
        run(env, ...args),
        (e: unknown) => {
          assert.ok(e instanceof Error && message.test(e.message), `${args.join(" ")}: ${String(e)}`);
          if (parameter) assert.equal((e as InvalidInputError).parameter, parameter);
          return true;
        },
        args.join(" "),
      );
    // parseArgs rejects unknown flags with a TypeError, which main() reports as one line.
    await assert.rejects(run(env, "list", "--bogus"), TypeError);
  });
});
