/**
 * The disk cache in front of object storage: it never holds more bytes than its bound (on
 * disk too), the least recently used go first, concurrent misses for one key make one load,
 * an absent object is remembered, and a lost file is loaded again.
 */
import assert from "node:assert/strict";
import { mkdtemp, readdir, rm, stat, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createRangeCache, parseCacheSize } from "../../src/io/rangeCache.js";

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "strata-cache-"));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);

async function onDisk(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir)) total += (await stat(join(dir, name))).size;
  return total;
}

describe("range cache", () => {
  it("stays within its byte bound, on disk too, evicting the least recently used", async () => {
    const cache = createRangeCache({ dir: join(root, "bound"), maxBytes: 10_000 });
    for (let i = 0; i < 50; i++) {
      const got = await cache.get(`k${i}`, async () => bytes(1000 + (i % 7) * 300, i));
      assert.equal(got![0], i);
      assert.ok(cache.bytes <= 10_000, `${cache.bytes} bytes after ${i}`);
      assert.ok((await onDisk(cache.dir)) <= 10_000);
    }
    // k49 is recent: a hit; k0 was evicted: a load.
    const loads = cache.loads;
    assert.equal((await cache.get("k49", async () => bytes(1, 0)))![0], 49);
    assert.equal(cache.loads, loads);
    assert.equal((await cache.get("k0", async () => bytes(5, 200)))![0], 200);
    assert.equal(cache.loads, loads + 1);
    // Larger than the whole bound: served, not kept.
    assert.equal((await cache.get("huge", async () => bytes(20_000, 9)))!.length, 20_000);
    assert.ok((await onDisk(cache.dir)) <= 10_000);
  });

  it("coalesces concurrent misses for one key into one load", async () => {
    const cache = createRangeCache({ dir: join(root, "coalesce"), maxBytes: 1 << 20 });
    let calls = 0;
    const slow = async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 50));
      return bytes(100, 7);
    };
    const all = await Promise.all(Array.from({ length: 20 }, () => cache.get("s3://b/k#0-99", slow)));
    assert.equal(calls, 1);
    assert.ok(all.every((a) => a!.length === 100 && a![0] === 7));
    assert.equal((await cache.get("s3://b/k#0-99", slow))![0], 7);
    assert.equal(calls, 1);
  });

  it("remembers absent objects, and loads again a file that went missing", async () => {
    const cache = createRangeCache({ dir: join(root, "absent"), maxBytes: 1 << 20 });
    let calls = 0;
    assert.equal(await cache.get("gone", async () => (calls++, undefined)), undefined);
    assert.equal(await cache.get("gone", async () => (calls++, undefined)), undefined);
    assert.equal(calls, 1);
    await cache.get("here", async () => bytes(10, 1));
    for (const name of await readdir(cache.dir)) await unlink(join(cache.dir, name));
    assert.equal((await cache.get("here", async () => bytes(10, 2)))![0], 2);
  });

  it("reads sizes as STRATA_RASTER_CACHE_SIZE gives them", () => {
    assert.equal(parseCacheSize("512M"), 512 * 1024 ** 2);
    assert.equal(parseCacheSize("0"), 0);
    assert.throws(() => parseCacheSize("lots"), /STRATA_RASTER_CACHE_SIZE must be a size/);
  });
});
