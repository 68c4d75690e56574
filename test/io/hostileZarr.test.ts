/**
 * Zarr stores whose metadata tries to read outside themselves (issue 10 §1): chunk keys that
 * climb out with "..", percent-encoded separators, consolidated paths with "..", and chunk
 * files that are symlinks out of the store. Each is refused as damaged data naming the
 * store, and no byte of the file outside is ever returned.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { CorruptDataError } from "../../src/cube/errors.js";
import { openCube } from "../../src/io/open.js";

let dir = "";
let secret = "";
// A float32 1.5 x 4: what the store would show if it read the secret file.
const SECRET = new Uint8Array(new Float32Array([1.5, 1.5, 1.5, 1.5]).buffer);

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-hostile-zarr-"));
  secret = join(dir, "secret.bin");
  await writeFile(secret, SECRET);
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A Zarr v2 store with one 1×2×2 float32 array "tas" (time, lat, lon) and its coordinates. */
async function v2Store(name: string, zarray: Record<string, unknown>, extra: (root: string) => Promise<void> = async () => {}) {
  const root = join(dir, name, "store.zarr");
  await mkdir(join(root, "tas"), { recursive: true });
  await writeFile(join(root, ".zgroup"), JSON.stringify({ zarr_format: 2 }));
  await writeFile(
    join(root, "tas", ".zarray"),
    JSON.stringify({
      zarr_format: 2,
      shape: [1, 2, 2],
      chunks: [1, 2, 2],
      dtype: "<f4",
      compressor: null,
      fill_value: null,
      filters: null,
      order: "C",
      ...zarray,
    }),
  );
  await writeFile(join(root, "tas", ".zattrs"), JSON.stringify({ _ARRAY_DIMENSIONS: ["time", "lat", "lon"] }));
  for (const [coord, values] of [
    ["lat", [1, 0]],
    ["lon", [0, 1]],
    ["time", [0]],
  ] as const) {
    await mkdir(join(root, coord), { recursive: true });
    await writeFile(
      join(root, coord, ".zarray"),
      JSON.stringify({
        zarr_format: 2,
        shape: [values.length],
        chunks: [values.length],
        dtype: "<f8",
        compressor: null,
        fill_value: null,
        filters: null,
        order: "C",
      }),
    );
    const attrs =
      coord === "time"
        ? { units: "days since 2000-01-01", calendar: "standard" }
        : { units: coord === "lat" ? "degrees_north" : "degrees_east" };
    await writeFile(join(root, coord, ".zattrs"), JSON.stringify({ _ARRAY_DIMENSIONS: [coord], ...attrs }));
    await writeFile(join(root, coord, "0"), new Uint8Array(new Float64Array(values).buffer));
  }
  await extra(root);
  return root;
}

async function assertRefused(root: string): Promise<void> {
  let values: ArrayLike<number> | undefined;
  await assert.rejects(
    async () => {
      const cube = await openCube(root, "upload.zip");
      try {
        values = (await cube.variables.find((v) => v.name === "tas")!.read()).data;
      } finally {
        await cube.close();
      }
    },
    (e: unknown) => e instanceof CorruptDataError && /upload\.zip/.test(e.message) && !e.message.includes(dir),
  );
  assert.equal(values, undefined, "no values were read");
}

describe("a Zarr store never reads outside itself", () => {
  it("refuses a dimension separator that climbs out with ..", async () => {
    // chunk key "tas/0" + sep + ... : with this separator the key walks up to the secret.
    const root = await v2Store("dotdot", { dimension_separator: "/../../../secret.bin/../" });
    await assertRefused(root);
  });

  it("refuses a percent-encoded separator", async () => {
    const root = await v2Store("percent", { dimension_separator: "%2F..%2F..%2F" });
    await assertRefused(root);
  });

  it("refuses a chunk file that is a symlink out of the store", async () => {
    const root = await v2Store("symlink", {}, async (r) => symlink(secret, join(r, "tas", "0.0.0")));
    await assertRefused(root);
  });

  it("reads a plain store (the same store with its own chunk)", async () => {
    const root = await v2Store("plain", {}, async (r) =>
      writeFile(join(r, "tas", "0.0.0"), new Uint8Array(new Float32Array([1, 2, 3, 4]).buffer)),
    );
    const cube = await openCube(root);
    try {
      assert.deepEqual([...(await cube.variables.find((v) => v.name === "tas")!.read()).data], [1, 2, 3, 4]);
    } finally {
      await cube.close();
    }
  });
});
