/**
 * HDF5 files whose data lives outside themselves (issue 10 §1), made by h5py
 * (scripts/goldens/make_hostile_hdf5.py): external storage at an absolute path, an external
 * link, a virtual dataset, each pointing at /tmp/strata-hostile-secret.bin, which this test
 * writes. Each is refused at open with a message naming what it is, as is a filter HDF5 does
 * not build in; a file with the HDF5 signature and junk after it is damaged data (a 400).
 */
import assert from "node:assert/strict";
import { rm, writeFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { CorruptDataError, UnsupportedDataError } from "../../src/cube/errors.js";
import { openCube } from "../../src/io/open.js";

const HOSTILE = new URL("../fixtures/hostile/", import.meta.url).pathname;
const SECRET = "/tmp/strata-hostile-secret.bin";

before(async () => {
  await writeFile(SECRET, new Uint8Array(new Float32Array([7, 7, 7, 7]).buffer));
});
after(async () => {
  await rm(SECRET, { force: true });
});

async function refusal(file: string): Promise<Error> {
  try {
    const cube = await openCube(HOSTILE + file, file);
    const values = await Promise.all(cube.variables.map(async (v) => [...(await v.read()).data]));
    await cube.close();
    assert.fail(`${file} was opened and read: ${JSON.stringify(values)}`);
  } catch (e) {
    assert.ok(e instanceof Error && !(e instanceof assert.AssertionError), String(e));
    assert.ok(!e.message.includes(HOSTILE), `no server path: ${e.message}`);
    return e;
  }
}

describe("HDF5 data outside the file is refused, never read", () => {
  for (const [file, what] of [
    ["external_storage.h5", /tas is stored in another file/],
    ["external_link.h5", /tas is an external link/],
    ["virtual.h5", /tas is a virtual dataset/],
  ] as const) {
    it(file, async () => {
      const e = await refusal(file);
      assert.ok(e instanceof UnsupportedDataError, e.message);
      assert.match(e.message, what);
      assert.match(e.message, new RegExp(`^${file.replace(".", "\\.")}: `));
    });
  }

  it("a filter HDF5 does not build in (lzf) is named", async () => {
    const e = await refusal("lzf_filter.h5");
    assert.ok(e instanceof UnsupportedDataError);
    assert.match(e.message, /HDF5 filter 32000 \(lzf\)/);
  });

  it("the HDF5 signature followed by junk is damaged data", async () => {
    const e = await refusal("junk_after_signature.h5");
    assert.ok(e instanceof CorruptDataError, `${e.constructor.name}: ${e.message}`);
  });
});
