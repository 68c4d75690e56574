/**
 * writeNetcdf4 on its own thread: the file it writes reads back with the selection asked
 * for, a bad selection comes back as the same InvalidInputError (with its parameter), and
 * an abort stops the thread leaving no file.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { InvalidInputError } from "../../src/cube/errors.js";
import { writeNetcdf4InThread } from "../../src/io/netcdf4InThread.js";
import { openCube } from "../../src/io/open.js";

const NAVY = new URL("../../samples/navy_winds_10deg.nc", import.meta.url).pathname;
let dir = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-nc4thread-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("writeNetcdf4InThread", () => {
  it("writes the selection, which reads back with the source's values", async () => {
    const target = join(dir, "winds.nc");
    await writeNetcdf4InThread({ source: NAVY, target, variables: ["VWND"], selections: { VWND: { StdTime: [3, 4] } } });
    const [out, src] = [await openCube(target), await openCube(NAVY)];
    try {
      assert.deepEqual(
        out.variables.map((v) => v.name),
        ["VWND"],
      );
      const got = await out.variables[0].read({ dims: [[0, 2]] });
      const want = await src.variables.find((v) => v.name === "VWND")!.read({ dims: [[3, 5]] });
      assert.deepEqual(Array.from(got.data), Array.from(want.data));
    } finally {
      await out.close();
      await src.close();
    }
  });

  it("passes a bad selection back as an InvalidInputError naming its parameter, leaving no file", async () => {
    const target = join(dir, "bad.nc");
    await assert.rejects(
      writeNetcdf4InThread({ source: NAVY, target, variables: ["NOPE"], selections: {} }),
      (e: unknown) => e instanceof InvalidInputError && e.parameter === "variables" && /NOPE/.test(e.message),
    );
    assert.equal(existsSync(target), false);
  });

  it("stops at an abort, leaving no file", async () => {
    const target = join(dir, "aborted.nc");
    const controller = new AbortController();
    const writing = writeNetcdf4InThread({ source: NAVY, target, variables: ["UWND", "VWND"], selections: {} }, controller.signal);
    controller.abort();
    await assert.rejects(writing);
    assert.deepEqual(
      (await readdir(dir)).filter((f) => f.startsWith("aborted")),
      [],
    );
  });
});
