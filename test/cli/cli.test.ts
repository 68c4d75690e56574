/** The strata command line: help, errors as one line with a non-zero exit, data-store URIs. */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { strata } from "../helpers/cli.js";
import { REAL } from "../helpers/golden.js";
import { serveDirectory } from "../helpers/staticServer.js";

const SHARE = `fileShare:real=${REAL}`;

describe("strata CLI", () => {
  it("prints help for the tool and for each command", async () => {
    const top = await strata("--help");
    assert.equal(top.code, 0);
    assert.match(top.stdout, /strata info <path\|uri>/);
    for (const command of ["info", "convert"]) {
      const r = await strata(command, "--help");
      assert.equal(r.code, 0);
      assert.match(r.stdout, new RegExp(`Usage: strata ${command}`));
    }
  });

  it("answers unknown commands, unknown flags and missing arguments with one line and a non-zero exit", async () => {
    for (const argv of [["frobnicate"], ["info", "--bogus", "x"], ["info"], ["convert", "only-one"], []]) {
      const r = await strata(...argv);
      assert.notEqual(r.code, 0, argv.join(" "));
      const text = (r.stderr || r.stdout).trim();
      if (argv.length) assert.equal(text.split("\n").length, 1, `one line for ${argv.join(" ")}: ${text}`);
    }
  });

  it("reads through a registered file share, from a flag or the environment", async () => {
    const r = await strata("info", "/fileShares/real/coads_climatology.cdf", "--store", SHARE);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /SST \(StdTime=12, rows=90, cols=180\) F32 \[Deg C\]/);
    process.env.STRATA_DATA_STORES = SHARE;
    try {
      assert.equal((await strata("info", "/fileShares/real/nc4uvt.nc")).code, 0);
    } finally {
      delete process.env.STRATA_DATA_STORES;
    }
  });

  it("reads a Zarr store from an HTTP cloud store", async () => {
    const dir = await mkdtemp(join(tmpdir(), "strata-cloud-"));
    const server = await serveDirectory(dir);
    try {
      assert.equal((await strata("convert", `${REAL}coads_climatology.cdf`, join(dir, "coads.zarr"))).code, 0);
      const r = await strata("info", "--json", "/cloudStores/web/coads.zarr", "--store", `cloudStore:web=${server.url.href}`);
      assert.equal(r.code, 0, r.stderr);
      const info = JSON.parse(r.stdout) as { format: string; variables: { name: string }[] };
      assert.equal(info.format, "zarr");
      assert.deepEqual(
        info.variables.map((v) => v.name),
        ["SST", "AIRT", "SPEH", "WSPD", "UWND", "VWND", "SLP"],
      );
      assert.ok(server.requests.includes("/coads.zarr/zarr.json"));
    } finally {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses traversal out of a share and unregistered stores", async () => {
    const escape = await strata("info", "/fileShares/real/../../../etc/passwd", "--store", SHARE);
    assert.equal(escape.code, 1);
    assert.match(escape.stderr, /strata info: .*\.\./);
    const unknown = await strata("info", "/fileShares/nope/x.nc", "--store", SHARE);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /nope/);
    const none = await strata("info", "/cloudStores/x/y.zarr");
    assert.match(none.stderr, /no stores are registered/);
    const badSpec = await strata("info", "/fileShares/real/x.nc", "--store", "share=/tmp");
    assert.equal(badSpec.code, 1);
  });
});
