/**
 * Uploads as an attacker sends them (issue 10 §2-§4): multipart bodies that are truncated or
 * have no boundary are 400s; zip bombs and zips whose headers lie are refused while read;
 * the storage quota bounds what a user keeps; an item that cannot be made (a 300-character
 * title, an unknown folder) is refused before the file is stored; no refusal names a server
 * path, and none leaves a dataset, a pending directory or a scratch file behind.
 */
import assert from "node:assert/strict";
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { zipSync } from "fflate";
import { type TestServer, startTestServer } from "../helpers/server.js";

const NAVY = new URL("../../samples/navy_winds_10deg.nc", import.meta.url).pathname;
const ADD = "/sharing/rest/content/users/ana/addItem";
let server: TestServer;
let token = "";
let navy: Uint8Array<ArrayBuffer>;

before(async () => {
  // Room for two copies of the navy winds sample (0.69 MiB each), not three.
  server = await startTestServer({ "user-quota": "1.6M" });
  await server.addUser("ana", "publisher", "ana-password-1");
  token = await server.token("ana", "ana-password-1");
  navy = new Uint8Array(await readFile(NAVY)) as Uint8Array<ArrayBuffer>;
});
after(async () => {
  await server.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers
async function add(fields: Record<string, string | Blob>, path = ADD): Promise<any> {
  const form = new FormData();
  for (const [k, v] of Object.entries({ f: "json", token, ...fields })) form.set(k, v);
  return (await fetch(`${server.url}${path}`, { method: "POST", body: form })).json();
}

/** Everything an upload could leave: datasets, pending datasets, scratch files. */
async function leftovers(): Promise<string[]> {
  const list = async (d: string) => (await readdir(join(server.dataDir, d)).catch(() => [] as string[])).map((n) => `${d}/${n}`);
  return [
    ...(await list("rasters")).filter((n) => !/\/\.(pending|trash)$/.test(n)),
    ...(await list("rasters/.pending")),
    ...(await list("tmp/uploads")),
  ].sort();
}

function assertRefused(r: { error?: { code: number; details: string[] } }, parameter: RegExp): void {
  assert.equal(r.error?.code, 400, JSON.stringify(r));
  const text = JSON.stringify(r);
  assert.match(r.error!.details.join(" "), parameter);
  assert.ok(!text.includes(server.dataDir) && !/\/(tmp|work|root|home)\//.test(text), `a server path in ${text}`);
}

describe("multipart bodies", () => {
  for (const [what, contentType, body] of [
    [
      "truncated",
      "multipart/form-data; boundary=XyZ",
      '--XyZ\r\nContent-Disposition: form-data; name="f"\r\n\r\njson\r\n--XyZ\r\nContent-Dis',
    ],
    ["without a boundary", "multipart/form-data", '--XyZ\r\nContent-Disposition: form-data; name="f"\r\n\r\njson\r\n--XyZ--\r\n'],
  ] as const) {
    it(`answers a body ${what} with a 400 naming the body`, async () => {
      const r = await fetch(`${server.url}${ADD}?f=json&token=${token}`, {
        method: "POST",
        headers: { "content-type": contentType },
        body,
      });
      assert.equal(r.status, 200);
      const answer = (await r.json()) as { error?: { code: number; details: string[] } };
      assertRefused(answer, /multipart/);
    });
  }
});

describe("zips", () => {
  it("refuses a zip bomb from its declared sizes, before unpacking it", async () => {
    const before = await leftovers();
    const zeros = new Uint8Array(64 * 1024 * 1024);
    const zip = zipSync(
      { "store/zarr.json": new TextEncoder().encode('{"zarr_format":3,"node_type":"group"}'), "store/c/0": zeros },
      { level: 9 },
    );
    assert.ok(zip.byteLength < 1024 * 1024, `${zip.byteLength} bytes`);
    const r = await add({ file: new Blob([new Uint8Array(zip)]), filename: "bomb.zip" });
    assertRefused(r, /zip bomb/);
    assert.deepEqual(await leftovers(), before);
  });

  it("refuses a zip whose entry holds more than its header declares, while reading it", async () => {
    const before = await leftovers();
    const payload = new Uint8Array(4096).map((_, i) => (i * 7919) % 251);
    const zip = zipSync({ "zarr.json": new TextEncoder().encode('{"zarr_format":3,"node_type":"group"}'), "c/0": payload }, { level: 0 });
    lieAboutSize(zip, "c/0", 100);
    const r = await add({ file: new Blob([new Uint8Array(zip)]), filename: "liar.zip" });
    assertRefused(r, /file/);
    assert.deepEqual(await leftovers(), before);
  });
});

describe("a zipped Zarr store whose chunk keys would leave the store", () => {
  it("is refused at upload, naming the separator, and leaves nothing", async () => {
    const before = await leftovers();
    const json = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));
    const array = (shape: number[], dtype: string, extra: object = {}) =>
      json({ zarr_format: 2, shape, chunks: shape, dtype, compressor: null, fill_value: null, filters: null, order: "C", ...extra });
    const zip = zipSync({
      ".zgroup": json({ zarr_format: 2 }),
      "lat/.zarray": array([2], "<f8"),
      "lat/.zattrs": json({ _ARRAY_DIMENSIONS: ["lat"], units: "degrees_north" }),
      "lon/.zarray": array([2], "<f8"),
      "lon/.zattrs": json({ _ARRAY_DIMENSIONS: ["lon"], units: "degrees_east" }),
      // Chunk "0/0" would be read from ../../../../../../strata.log: the server's own log.
      "tas/.zarray": array([2, 2], "<f4", { dimension_separator: "/../../../../../../strata.log/" }),
      "tas/.zattrs": json({ _ARRAY_DIMENSIONS: ["lat", "lon"] }),
    });
    const r = await add({ file: new Blob([new Uint8Array(zip)]), filename: "evil.zip" });
    assertRefused(r, /separates chunk indices/);
    assert.ok(!JSON.stringify(r).includes(server.dataDir));
    assert.deepEqual(await leftovers(), before);
  });
});

describe("items checked before the file is stored", () => {
  it("refuses a 300-character title and an unknown folder, keeping nothing", async () => {
    const before = await leftovers();
    assertRefused(await add({ file: new Blob([navy]), filename: "n.nc", title: "t".repeat(300) }), /title/);
    assertRefused(
      await add({ file: new Blob([navy]), filename: "n.nc" }, "/sharing/rest/content/users/ana/nosuchfolder/addItem"),
      /folder/i,
    );
    assert.deepEqual(await leftovers(), before);
  });

  it("names a file that is no raster as the client named it, not by where the server put it", async () => {
    const r = await add({ file: new Blob(["hello, not a raster"]), filename: "notes.nc" });
    assertRefused(r, /notes\.nc/);
  });
});

describe("storage quota", () => {
  it("takes uploads while they fit, then refuses them (and publishing) naming the quota, keeping nothing", async () => {
    const first = await add({ file: new Blob([navy]), filename: "a.nc" });
    assert.equal(first.success, true, JSON.stringify(first));
    const second = await add({ file: new Blob([navy]), filename: "b.nc" });
    assert.equal(second.success, true, JSON.stringify(second));
    const before = await leftovers();
    assertRefused(await add({ file: new Blob([navy]), filename: "c.nc" }), /quota/);
    assert.deepEqual(await leftovers(), before);
    const publish = await server.call(
      "/sharing/rest/content/users/ana/publish",
      { itemId: first.id, publishParameters: JSON.stringify({ name: "over_quota" }) },
      { token },
    );
    assertRefused(publish, /quota|file/);
    assert.deepEqual(await leftovers(), before);
  });
});

/** Rewrite the uncompressed size of `name` in its local header and its central directory record. */
function lieAboutSize(zip: Uint8Array, name: string, size: number): void {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const encoded = new TextEncoder().encode(name);
  for (let i = 0; i + 46 < zip.length; i++) {
    const signature = view.getUint32(i, true);
    const [nameAt, sizeAt] = signature === 0x04034b50 ? [30, 22] : signature === 0x02014b50 ? [46, 24] : [0, 0];
    if (!nameAt) continue;
    const nameLength = view.getUint16(i + (signature === 0x04034b50 ? 26 : 28), true);
    if (nameLength === encoded.length && encoded.every((b, k) => zip[i + nameAt + k] === b)) view.setUint32(i + sizeAt, size, true);
  }
}
