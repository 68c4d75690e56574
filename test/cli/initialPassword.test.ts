/**
 * The first admin password reaches a person and never a log (issue 10 §1): on a terminal it
 * is shown once; otherwise it goes to <data dir>/initial-admin-password, created 0600 (a stale
 * file or a symlink there is replaced, not written through), and the output names the file.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { lstatSync } from "node:fs";
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { INITIAL_PASSWORD_FILE, handOver } from "../../src/cli/serve.js";

const STRATA = fileURLToPath(new URL("../../bin/strata.js", import.meta.url));
let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-password-"));
});
after(() => rm(dir, { recursive: true, force: true }));

describe("the first admin password", () => {
  it("is shown on a terminal and written nowhere", async () => {
    const dataDir = join(dir, "tty");
    await mkdir(dataDir);
    const text = await handOver("TerminalPassword123", dataDir, true);
    assert.match(text, /TerminalPassword123/);
    assert.deepEqual(await readdir(dataDir), []);
  });

  it("goes to a fresh 0600 file when no terminal shows it, never through a link or into a stale file's mode", async () => {
    const dataDir = join(dir, "piped");
    await mkdir(dataDir);
    const elsewhere = join(dir, "elsewhere.txt");
    await writeFile(elsewhere, "untouched\n", { mode: 0o644 });
    await symlink(elsewhere, join(dataDir, INITIAL_PASSWORD_FILE));
    const text = await handOver("PipedPassword456", dataDir, false);
    const file = join(dataDir, INITIAL_PASSWORD_FILE);
    assert.ok(!text.includes("PipedPassword456"), text);
    assert.ok(text.includes(file), text);
    assert.equal(await readFile(elsewhere, "utf8"), "untouched\n", "the link's target is not written");
    const stat = lstatSync(file);
    assert.ok(stat.isFile(), "a regular file replaced the link");
    assert.equal(stat.mode & 0o777, 0o600);
    assert.equal((await readFile(file, "utf8")).trim(), "PipedPassword456");
  });

  it("strata serve with its output piped (a service, a log file) prints where it is, not what it is", { timeout: 120_000 }, async () => {
    const dataDir = join(dir, "served");
    const child = spawn(process.execPath, [STRATA, "serve", "--port", "0", "--data-dir", dataDir, "--workers", "1", "--no-samples"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setInterval(() => {
          const m = output.match(/Strata is serving (\S+)/);
          if (m) {
            clearInterval(timer);
            resolve(m[1]);
          }
        }, 50);
        child.once("exit", (code) => {
          clearInterval(timer);
          reject(new Error(`strata serve exited with ${code}: ${output}`));
        });
      });
      const file = join(dataDir, INITIAL_PASSWORD_FILE);
      assert.equal(lstatSync(file).mode & 0o777, 0o600);
      const password = (await readFile(file, "utf8")).trim();
      assert.equal(password.length, 24);
      assert.ok(output.includes(file), output);
      // A request or two, so the log has lines to hold it if it were logged.
      const got = await (
        await fetch(`${url}/sharing/rest/generateToken`, {
          method: "POST",
          body: new URLSearchParams({ username: "admin", password, f: "json" }),
        })
      ).json();
      assert.ok(got.token, JSON.stringify(got));
      await fetch(`${url}/rest/info?f=json&token=${got.token}`);
      await new Promise((r) => setTimeout(r, 200));
      assert.ok(!output.includes(password), "the password is not in the output");
      assert.ok(!output.includes(got.token), "nor the token");
    } finally {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await exited;
      }
    }
  });
});
