/**
 * The raster store on S3 (against s3rver): a dataset exists only once its commit marker is
 * put; a crash before the marker leaves objects that a sweep removes (once idle past the
 * grace period, so another node's upload under way is left alone); remove hides a dataset at
 * once by deleting its marker; abort and discardPending leave nothing; large files go up in
 * parts; threads attaching to the data directory find the same store.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { DeleteObjectCommand, ListObjectsV2Command, PutObjectCommand } from "@aws-sdk/client-s3";
import { NotFoundError } from "../../src/cube/errors.js";
import { s3Client } from "../../src/io/s3Client.js";
import { directorySize } from "../../src/store/diskUsage.js";
import { StoreBindingError, newDatasetId, openRasterStore } from "../../src/store/rasterStore.js";
import { type TestS3, startTestS3 } from "../helpers/s3Server.js";

let s3: TestS3;
let work: string;
let n = 0;

before(async () => {
  s3 = await startTestS3(["rasters"]);
  work = await mkdtemp(join(tmpdir(), "strata-s3store-"));
});
after(async () => {
  await s3.close();
  await rm(work, { recursive: true, force: true });
});

/** A fresh data directory and prefix, so tests do not see each other's datasets. */
async function fresh(options: { sweepGraceMs?: number } = {}) {
  n++;
  const dataDir = join(work, `d${n}`);
  const prefix = `strata/t${n}`;
  const store = await openRasterStore(dataDir, { remote: `s3://rasters/${prefix}`, ...options });
  return { dataDir, prefix, store };
}

async function keys(prefix: string): Promise<string[]> {
  const page = await s3Client().send(new ListObjectsV2Command({ Bucket: "rasters", Prefix: `${prefix}/` }));
  return (page.Contents ?? []).map((o) => o.Key!.slice(prefix.length + 1)).sort();
}

async function put(key: string, body = "x"): Promise<void> {
  await s3Client().send(new PutObjectCommand({ Bucket: "rasters", Key: key, Body: body }));
}

/** A little Zarr-like tree: metadata at two levels and chunks. */
async function writeTree(path: string): Promise<void> {
  await mkdir(join(path, "a", "c", "0"), { recursive: true });
  await writeFile(join(path, "zarr.json"), '{"node_type":"group"}');
  await writeFile(join(path, "a", "zarr.json"), '{"node_type":"array"}');
  await writeFile(join(path, "a", "c", "0", "0"), "chunk-0");
  await writeFile(join(path, "a", "c", "0", "1"), "chunk-1");
}

describe("S3 raster store", () => {
  it("makes a dataset visible only once its marker is put, and the local copy goes", async () => {
    const { store, prefix } = await fresh();
    assert.equal(store.location, `s3://rasters/${prefix}`);
    const pending = await store.begin();
    await writeTree(pending.path);
    assert.deepEqual(await store.list(), []);
    await assert.rejects(store.resolve(pending.id), NotFoundError);

    const location = await pending.commit();
    assert.equal(location, `s3://rasters/${prefix}/${pending.id}`);
    assert.deepEqual(await store.list(), [pending.id]);
    assert.equal(await store.resolve(pending.id), location);
    assert.deepEqual(await keys(prefix), [
      `.commits/${pending.id}`,
      `${pending.id}/a/c/0/0`,
      `${pending.id}/a/c/0/1`,
      `${pending.id}/a/zarr.json`,
      `${pending.id}/zarr.json`,
    ]);
    const marker = JSON.parse(
      await (
        await s3Client().send(
          new (await import("@aws-sdk/client-s3")).GetObjectCommand({ Bucket: "rasters", Key: `${prefix}/.commits/${pending.id}` }),
        )
      ).Body!.transformToString(),
    );
    assert.deepEqual([marker.id, marker.objects, marker.bytes], [pending.id, 4, 21 + 21 + 7 + 7]);
    await assert.rejects(stat(pending.path), { code: "ENOENT" });
    assert.equal(await directorySize(location), 56);
    // A second commit is the first's answer.
    assert.equal(await pending.commit(), location);
  });

  it("treats objects without a marker (a crash before it) as absent", async () => {
    const { store, prefix } = await fresh();
    const id = newDatasetId();
    await put(`${prefix}/${id}/zarr.json`, "{}");
    await put(`${prefix}/${id}/a/c/0/0`);
    assert.deepEqual(await store.list(), []);
    await assert.rejects(store.resolve(id), NotFoundError);
    await put(`${prefix}/.commits/${id}`, "{}");
    assert.deepEqual(await store.list(), [id]);
  });

  it("sweeps a crash's leftovers once idle past the grace period, and nothing committed", async () => {
    const { store, prefix, dataDir } = await fresh();
    const committed = await store.begin();
    await writeTree(committed.path);
    await committed.commit();
    const crashed = newDatasetId();
    await put(`${prefix}/${crashed}/zarr.json`, "{}");
    await put(`${prefix}/${crashed}/a/c/0/0`);
    const pendingLocal = await store.begin();

    // Another node's upload may be under way: fresh objects stay, with the default grace.
    const again = await openRasterStore(dataDir, { remote: `s3://rasters/${prefix}` });
    assert.deepEqual(again.swept.pending, [pendingLocal.id]);
    assert.ok((await keys(prefix)).includes(`${crashed}/zarr.json`));
    await again.close();

    // Idle past a grace of 0 ms: the server's start sweeps them.
    const later = await openRasterStore(dataDir, { remote: `s3://rasters/${prefix}`, sweepGraceMs: 0 });
    assert.deepEqual(later.swept.pending, [crashed]);
    assert.deepEqual(
      (await keys(prefix)).filter((k) => !k.startsWith(committed.id) && !k.endsWith(committed.id)),
      [],
    );
    assert.deepEqual(await later.list(), [committed.id]);
    await later.close();
    await store.close();
  });

  it("removes a dataset at once by its marker; the sweep finishes what remove could not", async () => {
    const { store, prefix } = await fresh({ sweepGraceMs: 0 });
    const a = await store.begin();
    await writeTree(a.path);
    await a.commit();
    await store.remove(a.id);
    assert.deepEqual(await store.list(), []);
    await assert.rejects(store.resolve(a.id), NotFoundError);
    assert.deepEqual(await keys(prefix), []);
    await assert.rejects(store.remove(a.id), NotFoundError);
    await assert.rejects(store.remove("../x"), NotFoundError);

    // A remove that stopped right after its first step (the marker): gone from view, swept later.
    const b = await store.begin();
    await writeTree(b.path);
    await b.commit();
    await s3Client().send(new DeleteObjectCommand({ Bucket: "rasters", Key: `${prefix}/.commits/${b.id}` }));
    assert.deepEqual(await store.list(), []);
    await assert.rejects(store.resolve(b.id), NotFoundError);
    assert.deepEqual((await store.sweepPending()).pending, [b.id]);
    assert.deepEqual(await keys(prefix), []);
    await store.close();
  });

  it("abort and discardPending leave nothing, locally or on S3", async () => {
    const { store, prefix, dataDir } = await fresh();
    const a = await store.begin();
    await writeTree(a.path);
    await put(`${prefix}/${a.id}/a/c/0/0`); // as if a commit had begun uploading
    await a.abort();
    await assert.rejects(a.commit());
    await assert.rejects(stat(a.path), { code: "ENOENT" });
    assert.deepEqual(await keys(prefix), []);

    // A job thread's writer died; the server discards its pending dataset by id.
    const thread = await openRasterStore(dataDir, { sweep: false });
    assert.equal(thread.location, `s3://rasters/${prefix}`);
    const b = await thread.begin();
    await writeTree(b.path);
    await put(`${prefix}/${b.id}/zarr.json`);
    await store.discardPending(b.id);
    await assert.rejects(stat(b.path), { code: "ENOENT" });
    assert.deepEqual(await keys(prefix), []);
    await store.close();
  });

  it("uploads a large file in parts, whole", async () => {
    const { store } = await fresh();
    const pending = await store.begin();
    const big = Buffer.alloc(20 * 1024 * 1024 + 123);
    for (let i = 0; i < big.length; i += 4096) big[i] = i % 251;
    await writeFile(join(pending.path, "data.nc"), big);
    const location = await pending.commit();
    const copy = await (
      await import("../../src/io/s3Files.js")
    ).localCopy({ bucket: "rasters", key: `${location.slice("s3://rasters/".length)}/data.nc` }, "the test file");
    try {
      assert.ok((await readFile(copy.path)).equals(big));
    } finally {
      copy.release();
    }
    await store.close();
  });

  it("binds the data directory: threads attach to S3, a local start unbinds it", async () => {
    const { dataDir, prefix, store } = await fresh();
    await store.close();
    const binding = JSON.parse(await readFile(join(dataDir, "rasters", "store.json"), "utf8"));
    assert.deepEqual(binding, { url: `s3://rasters/${prefix}` });
    const local = await openRasterStore(dataDir);
    assert.equal(local.location, join(dataDir, "rasters"));
    await assert.rejects(stat(join(dataDir, "rasters", "store.json")), { code: "ENOENT" });
    assert.equal((await openRasterStore(dataDir, { sweep: false })).location, join(dataDir, "rasters"));
  });

  it("lets cluster processes join the binding: the first writes it, the same store agrees, another is refused", async () => {
    n++;
    const dataDir = join(work, `d${n}`);
    const url = `s3://rasters/strata/t${n}`;
    const file = join(dataDir, "rasters", "store.json");
    // Two processes starting at once on a fresh directory (no sweep: an API node with a queue, a worker).
    const joined = await Promise.all([1, 2].map(() => openRasterStore(dataDir, { remote: `${url}/`, sweep: false, binding: "join" })));
    assert.deepEqual(
      joined.map((s) => s.location),
      [url, url],
    );
    assert.deepEqual(JSON.parse(await readFile(file, "utf8")), { url });
    assert.deepEqual((await readdir(join(dataDir, "rasters"))).sort(), [".pending", "store.json"], "no draft of the record is left");
    // Their threads attach to it.
    assert.equal((await openRasterStore(dataDir, { sweep: false })).location, url);
    const other = openRasterStore(dataDir, { remote: "s3://rasters/elsewhere", sweep: false, binding: "join" });
    await assert.rejects(other, (e: Error) => {
      assert.ok(e instanceof StoreBindingError);
      assert.equal(e.bound, url);
      assert.equal(e.asked, "s3://rasters/elsewhere");
      assert.match(e.message, /rasters are on s3:\/\/rasters\/strata\/t\d+ \(.*store\.json\), not on s3:\/\/rasters\/elsewhere/);
      return true;
    });
    await assert.rejects(openRasterStore(dataDir, { sweep: false, binding: "join" }), /rasters are on s3:.*, not local files/);
    // A joining process never unbinds: the record is as it was.
    assert.deepEqual(JSON.parse(await readFile(file, "utf8")), { url });
    // Local rasters leave no record: a process joining without --raster-store opens them.
    const localDir = join(work, `d${n}-local`);
    await (await openRasterStore(localDir)).close();
    assert.equal((await openRasterStore(localDir, { sweep: false, binding: "join" })).location, join(localDir, "rasters"));
  });

  it("checks the bucket when a cluster process joins (not only when it sweeps)", async () => {
    await assert.rejects(
      openRasterStore(join(work, "nob-join"), { remote: "s3://no-such-bucket/x", sweep: false, binding: "join" }),
      /bucket no-such-bucket does not exist/,
    );
  });

  it("refuses a missing bucket and an unreachable endpoint at open, with the reason", async () => {
    await assert.rejects(openRasterStore(join(work, "nob"), { remote: "s3://no-such-bucket/x" }), /bucket no-such-bucket does not exist/);
    const saved = process.env.AWS_ENDPOINT_URL;
    process.env.AWS_ENDPOINT_URL = "http://127.0.0.1:9"; // discard port: nothing listens
    try {
      await assert.rejects(openRasterStore(join(work, "unreach"), { remote: "s3://rasters/x" }), (e: Error) => {
        assert.match(e.message, /cannot reach http:\/\/127\.0\.0\.1:9 \(ECONNREFUSED\)/);
        assert.doesNotMatch(e.message, /S3RVER/);
        return true;
      });
    } finally {
      process.env.AWS_ENDPOINT_URL = saved;
    }
  });
});
