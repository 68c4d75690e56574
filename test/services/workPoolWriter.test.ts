/**
 * The work pool keeps one writer thread warm (issue 15): after the idle time, when the bulk
 * lane's threads have exited, the writer lane still has its thread, and a second NetCDF
 * download on it pays neither a thread start nor loading h5wasm again.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createWorkPool } from "../../src/services/work/pool.js";

const source = new URL("../../samples/sst_climatology_4deg.nc", import.meta.url).pathname;
const IDLE_MS = 300;
let dir = "";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-writer-"));
});
after(() => rm(dir, { recursive: true, force: true }));

describe("work pool writer lane", () => {
  it("keeps one writer thread, with h5wasm loaded, past the idle time; bulk threads exit", async () => {
    const pool = createWorkPool({ quickThreads: 1, bulkThreads: 1, idleMs: IDLE_MS });
    try {
      const download = async (lane: "bulk" | "writer", name: string): Promise<number> => {
        const target = join(dir, name);
        const t0 = performance.now();
        const { bytes } = await pool.run(
          "download",
          { source, target, variables: ["SST"], selections: { SST: { StdTime: [0] } } },
          { lane },
        );
        const ms = performance.now() - t0;
        // An HDF5 file (NetCDF-4) of the size the thread reported.
        const file = await readFile(target);
        assert.equal(file.byteLength, bytes);
        assert.deepEqual([...file.subarray(0, 8)], [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]);
        return ms;
      };
      await download("bulk", "bulk.nc");
      const first = await download("writer", "first.nc");
      await sleep(IDLE_MS * 4);
      const stats = pool.stats();
      assert.equal(stats.bulk.threads, 0, "bulk threads exit when idle");
      assert.equal(stats.writer.threads, 1, "one writer thread stays");
      const second = await download("writer", "second.nc");
      console.log(`writer lane: first download ${first.toFixed(0)} ms, after ${IDLE_MS * 4} ms idle ${second.toFixed(0)} ms`);
      // Warm: ~15-40 ms here; a fresh thread loading h5wasm took 0.9 s (3 s before h5wasm skipped tsx).
      assert.ok(second < 500, `second download took ${second.toFixed(0)} ms`);
    } finally {
      await pool.close();
    }
  });
});
