/**
 * The work pool's threads encode exports with the encoder the pool was given (pool.ts passes
 * it as workerData): a JPEG drawn on a thread is byte for byte the one drawn here with the
 * same encoder, and the two encoders' JPEGs differ (so a setting lost on the way fails).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Cube } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import { planExport, renderExport } from "../../src/services/exportImage.js";
import type { ImageEncoder } from "../../src/services/render/encodeImage.js";
import { loadSharp } from "../../src/services/render/sharpImage.js";
import { createWorkPool } from "../../src/services/work/pool.js";

const path = new URL("../../samples/sst_climatology_4deg.nc", import.meta.url).pathname;
const params = { format: "jpg", size: "90,45", compressionQuality: "80" };
let cube: Cube;

before(async () => {
  await loadSharp(); // on the main thread before any work thread, as startStrata does
  cube = await openCube(path);
});
after(() => cube.close());

describe("work pool image encoder", () => {
  it("reaches the threads", async () => {
    const drawn: Record<string, Uint8Array> = {};
    for (const encoder of ["sharp", "js"] as const satisfies readonly ImageEncoder[]) {
      const pool = createWorkPool({ quickThreads: 1, bulkThreads: 1, imageEncoder: encoder });
      try {
        const image = await pool.run("export", { path, params }, { lane: "quick" });
        assert.equal(image.contentType, "image/jpeg");
        const here = await renderExport(cube, {}, planExport(cube, {}, params), { encoder });
        assert.deepEqual(new Uint8Array(image.bytes), here.bytes, encoder);
        drawn[encoder] = here.bytes;
      } finally {
        await pool.close();
      }
    }
    assert.notDeepEqual(drawn.sharp, drawn.js, "mozjpeg and jpeg-js write different bytes");
  });
});
