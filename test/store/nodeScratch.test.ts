/**
 * Scratch files in a shared data directory: a server starting empties only its own
 * `tmp/<node>` directory; other nodes' files in flight stay, and only entries in which nothing
 * changed for a day (a node that never came back) are removed.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { STALE_SCRATCH_MS, nodeName, openNodeScratch } from "../../src/store/nodeScratch.js";
import { startTestServer } from "../helpers/server.js";

let work: string;
before(async () => {
  work = await mkdtemp(join(tmpdir(), "strata-scratch-"));
});
after(async () => {
  await rm(work, { recursive: true, force: true });
});

async function touch(path: string, ageMs: number): Promise<void> {
  const when = new Date(Date.now() - ageMs);
  await utimes(path, when, when);
}

describe("a node's scratch directory", () => {
  it("is named by host and port, safe as a file name", () => {
    assert.equal(nodeName(8080, "gis-1.example"), "gis-1.example-8080");
    assert.equal(nodeName(81, "a/b c"), "a_b_c-81");
  });

  it("starts empty, keeps other nodes' live files and removes only what nobody touched for a day", async () => {
    const dataDir = join(work, "shared");
    const tmp = join(dataDir, "tmp");
    // This node's leftovers from a crash.
    await mkdir(join(tmp, "me-80", "uploads"), { recursive: true });
    await writeFile(join(tmp, "me-80", "download-old.nc"), "x");
    // Another node's download and upload in flight.
    await mkdir(join(tmp, "other-80", "uploads"), { recursive: true });
    await writeFile(join(tmp, "other-80", "download-live.nc"), "x");
    await writeFile(join(tmp, "other-80", "uploads", "upload-live"), "x");
    // A node idle for long, but receiving an upload now: its directory is old, the file fresh.
    await mkdir(join(tmp, "idle-80", "uploads"), { recursive: true });
    await writeFile(join(tmp, "idle-80", "uploads", "upload-now"), "x");
    await touch(join(tmp, "idle-80", "uploads"), 2 * STALE_SCRATCH_MS);
    await touch(join(tmp, "idle-80"), 2 * STALE_SCRATCH_MS);
    // A node that never came back, and a file an older version left in tmp/ itself.
    await mkdir(join(tmp, "gone-80"), { recursive: true });
    await writeFile(join(tmp, "gone-80", "download-dead.nc"), "x");
    await touch(join(tmp, "gone-80", "download-dead.nc"), STALE_SCRATCH_MS + 60_000);
    await touch(join(tmp, "gone-80"), STALE_SCRATCH_MS + 60_000);
    await writeFile(join(tmp, "download-legacy.nc"), "x");
    await touch(join(tmp, "download-legacy.nc"), STALE_SCRATCH_MS + 60_000);

    const own = await openNodeScratch(dataDir, "me-80");
    assert.equal(own, join(tmp, "me-80"));
    assert.deepEqual(await readdir(own), []);
    assert.deepEqual((await readdir(tmp)).sort(), ["idle-80", "me-80", "other-80"]);
    assert.deepEqual((await readdir(join(tmp, "other-80"))).sort(), ["download-live.nc", "uploads"]);
    assert.deepEqual(await readdir(join(tmp, "idle-80", "uploads")), ["upload-now"]);
  });

  it("is where a server starting on a shared data directory clears, leaving another node's files", async () => {
    const dataDir = join(work, "server");
    const theirs = join(dataDir, "tmp", "other-host-8080", "download-in-flight.nc");
    await mkdir(join(theirs, ".."), { recursive: true });
    await writeFile(theirs, "partial");
    const server = await startTestServer({ "no-samples": true }, dataDir);
    try {
      assert.equal((await stat(theirs)).size, "partial".length, "another node's download survives this node's start");
      assert.equal(server.strata.scratchDir, join(dataDir, "tmp", nodeName(server.strata.port)));
      assert.deepEqual(await readdir(server.strata.scratchDir), []);
    } finally {
      await server.close();
    }
  });
});
