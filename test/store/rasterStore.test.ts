import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NotFoundError } from "../../src/cube/errors.js";
import { DATASET_ID_PATTERN, datasetIdTime } from "../../src/store/datasetId.js";
import { isDatasetId, newDatasetId, openRasterStore } from "../../src/store/rasterStore.js";

let dataDir: string;

before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "strata-rasters-"));
});
after(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function freshDir(): Promise<string> {
  return mkdtemp(join(dataDir, "store-"));
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

describe("newDatasetId", () => {
  it("is unique, well-formed and sorts in creation order over 10 000 calls", () => {
    const ids = Array.from({ length: 10_000 }, () => newDatasetId());
    assert.equal(new Set(ids).size, ids.length);
    for (const id of ids) assert.match(id, DATASET_ID_PATTERN);
    assert.deepEqual([...ids].sort(), ids);
  });

  it("encodes its creation time", () => {
    const before = Date.now();
    const time = datasetIdTime(newDatasetId())!;
    assert.ok(time >= before && time <= Date.now() + 1000, `time ${time}`);
    assert.equal(datasetIdTime("../x"), undefined);
  });
});

describe("openRasterStore", () => {
  it("makes a dataset visible only after commit", async () => {
    const store = await openRasterStore(await freshDir());
    const pending = await store.begin();
    assert.ok(isDatasetId(pending.id));
    assert.equal(pending.path, join(store.dataDir, "rasters", ".pending", pending.id));
    await writeFile(join(pending.path, "zarr.json"), "{}");

    assert.deepEqual(await store.list(), []);
    await assert.rejects(store.resolve(pending.id), NotFoundError);

    const final = await pending.commit();
    assert.equal(final, join(store.dataDir, "rasters", pending.id));
    assert.deepEqual(await store.list(), [pending.id]);
    assert.equal(await store.resolve(pending.id), final);
    assert.equal(await readFile(join(final, "zarr.json"), "utf8"), "{}");
    assert.equal(await exists(pending.path), false);

    // commit is idempotent and abort after commit keeps the dataset
    assert.equal(await pending.commit(), final);
    await pending.abort();
    assert.deepEqual(await store.list(), [pending.id]);
  });

  it("lists committed datasets oldest first and ignores anything else", async () => {
    const store = await openRasterStore(await freshDir());
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const pending = await store.begin();
      await pending.commit();
      ids.push(pending.id);
    }
    await store.begin(); // uncommitted
    await writeFile(join(store.dataDir, "rasters", "stray.txt"), "x");
    assert.deepEqual(await store.list(), ids);
  });

  it("abort leaves nothing behind", async () => {
    const store = await openRasterStore(await freshDir());
    const pending = await store.begin();
    await writeFile(join(pending.path, "chunk"), "partial");
    await pending.abort();
    await pending.abort(); // idempotent
    assert.equal(await exists(pending.path), false);
    assert.deepEqual(await readdir(join(store.dataDir, "rasters", ".pending")), []);
    assert.deepEqual(await store.list(), []);
    await assert.rejects(store.resolve(pending.id), NotFoundError);
    await assert.rejects(pending.commit(), /aborted/);
  });

  it("sweeps datasets left pending by a crash when reopened", async () => {
    const dir = await freshDir();
    const first = await openRasterStore(dir);
    const kept = await first.begin();
    await kept.commit();
    const crashed = await first.begin();
    await writeFile(join(crashed.path, "chunk"), "partial");
    // simulate a crash: the process dies, nobody commits or aborts

    const reopened = await openRasterStore(dir);
    assert.deepEqual(reopened.swept.pending, [crashed.id]);
    assert.equal(await exists(crashed.path), false);
    assert.deepEqual(await reopened.list(), [kept.id]);
    // the lost writer cannot resurrect it
    await assert.rejects(crashed.commit(), NotFoundError);
  });

  it("does not sweep when asked not to, or when leftovers are younger than olderThanMs", async () => {
    const dir = await freshDir();
    const first = await openRasterStore(dir);
    const pending = await first.begin();

    const attached = await openRasterStore(dir, { sweep: false });
    assert.deepEqual(attached.swept, { pending: [], trash: [] });
    assert.equal(await exists(pending.path), true);

    await writeFile(join(dir, "rasters", ".pending", "junk"), "x");
    const report = await attached.sweepPending({ olderThanMs: 60_000 });
    assert.deepEqual(report.pending, ["junk"]);
    assert.equal(await exists(pending.path), true);
    assert.equal(await pending.commit(), join(attached.dataDir, "rasters", pending.id));
  });

  it("removes datasets atomically and reports missing ones", async () => {
    const store = await openRasterStore(await freshDir());
    const a = await store.begin();
    const b = await store.begin();
    await writeFile(join(a.path, "chunk"), "a");
    await a.commit();
    await b.commit();

    await store.remove(a.id);
    assert.deepEqual(await store.list(), [b.id]);
    await assert.rejects(store.resolve(a.id), NotFoundError);
    assert.deepEqual(await readdir(join(store.dataDir, "rasters", ".trash")), []);
    await assert.rejects(store.remove(a.id), NotFoundError);
    await assert.rejects(store.remove(newDatasetId()), NotFoundError);
  });

  it("sweeps removals that were interrupted before their bytes were deleted", async () => {
    const dir = await freshDir();
    await openRasterStore(dir);
    await writeFile(join(dir, "rasters", ".trash", "leftover"), "x");
    const store = await openRasterStore(dir);
    assert.deepEqual(store.swept.trash, ["leftover"]);
  });

  it("refuses malformed ids before touching the file system", async () => {
    const store = await openRasterStore(await freshDir());
    const pending = await store.begin();
    await pending.commit();
    const malformed = [
      "",
      ".",
      "..",
      "../x",
      ".pending",
      ".trash",
      "/etc/passwd",
      `${pending.id}/..`,
      `${pending.id}/`,
      `../rasters/${pending.id}`,
      pending.id.toUpperCase(),
      pending.id + "0",
      pending.id.slice(1),
      "0".repeat(25) + "i", // not in the alphabet
      "0".repeat(25) + "\u0000",
    ];
    for (const id of malformed) {
      await assert.rejects(store.resolve(id), NotFoundError, `resolve(${JSON.stringify(id)})`);
      await assert.rejects(store.remove(id), NotFoundError, `remove(${JSON.stringify(id)})`);
    }
    assert.deepEqual(await store.list(), [pending.id]);
  });
});

it("discardPending deletes another writer's uncommitted dataset and leaves committed ones", async () => {
  const dir = await mkdtemp(join(tmpdir(), "strata-discard-"));
  try {
    const store = await openRasterStore(dir);
    const lost = await store.begin();
    const kept = await store.begin();
    await kept.commit();
    await store.discardPending(lost.id);
    await store.discardPending(kept.id);
    assert.equal(await stat(lost.path).catch(() => undefined), undefined);
    assert.deepEqual(await store.list(), [kept.id]);
    await assert.rejects(store.discardPending("../x"), /No dataset/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
