/**
 * Bad queue settings are refused before anything starts, naming the flag and the reason,
 * and never showing the password a redis:// URL may carry.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { main } from "../../src/cli/main.js";
import { resolveServeConfig } from "../../src/cli/serveConfig.js";
import { freePort } from "../helpers/freePort.js";

async function strata(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) });
  return { code, stdout, stderr };
}

describe("--queue", () => {
  it("takes a redis:// URL and refuses anything else, naming the flag", () => {
    assert.equal(resolveServeConfig({ queue: "redis://127.0.0.1:6379/2" }, {}).queue, "redis://127.0.0.1:6379/2");
    assert.equal(resolveServeConfig({}, { STRATA_QUEUE: "rediss://cache:6380" }).queue, "rediss://cache:6380");
    assert.equal(resolveServeConfig({}, {}).queue, undefined, "no queue by default: jobs on the node's threads");
    for (const bad of ["http://127.0.0.1:6379", "127.0.0.1:6379", "redis://", "redis://host:6379/x", "redis://host:6379?db=1"]) {
      assert.throws(() => resolveServeConfig({ queue: bad }, {}), /^InvalidInputError: --queue\b/, bad);
    }
    assert.throws(
      () => resolveServeConfig({ queue: "http://:hunter2@host" }, {}),
      (e: Error) => e.message.startsWith("--queue") && !e.message.includes("hunter2"),
    );
  });

  it("strata worker needs one, and says so", async () => {
    const dir = await mkdtemp(join(tmpdir(), "strata-worker-flags-"));
    try {
      const saved = process.env.STRATA_QUEUE;
      delete process.env.STRATA_QUEUE;
      const { code, stderr } = await strata(["worker", "--data-dir", dir]);
      if (saved !== undefined) process.env.STRATA_QUEUE = saved;
      assert.equal(code, 1);
      assert.match(stderr, /^strata worker: strata worker needs --queue redis:\/\/host:port/);
      const bad = await strata(["worker", "--data-dir", dir, "--queue", "redis://h:1", "--jobs", "0"]);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /--jobs must be a whole number from 1 to 256; got "0"/);
      const warm = await strata(["worker", "--data-dir", dir, "--queue", "redis://h:1", "--jobs", "2", "--warm-workers", "3"]);
      assert.equal(warm.code, 1);
      assert.match(warm.stderr, /--warm-workers must be a whole number from 0 to 2 \(--jobs\); got "3"/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a Redis out of reach at start: the flag, the URL without its password, the reason; no stack", async () => {
    const dir = await mkdtemp(join(tmpdir(), "strata-worker-flags-"));
    try {
      const port = await freePort();
      for (const command of ["worker", "serve"]) {
        const args = [command, "--data-dir", dir, "--queue", `redis://:hunter2@127.0.0.1:${port}`];
        const { code, stderr } = await strata(command === "serve" ? [...args, "--port", "0", "--no-samples"] : args);
        assert.equal(code, 1, stderr);
        assert.match(stderr, new RegExp(`--queue redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}: cannot reach Redis \\(.*ECONNREFUSED.*\\)`));
        assert.ok(!stderr.includes("hunter2"), stderr);
        assert.doesNotMatch(stderr, /\n\s+at /);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
