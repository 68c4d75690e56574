/**
 * Tests of exportImage's picture encoding (src/services/render/encodeImage.ts, sharpImage.ts):
 * sharp's PNGs decode (test/helpers/pngDecode.ts) to exactly the pixels of the pure-JS
 * encoder, its JPEGs carry the same quantisation tables and sampling as jpeg-js's and decode
 * (jpeg-js) as close to the source, and the choice of encoder and of jpgpng's format holds.
 * The fallback when sharp cannot load is run in a child process whose module resolution
 * refuses "sharp".
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import jpeg from "jpeg-js";

import { encodeImage } from "../../../src/services/render/encodeImage.js";
import { encodeJpeg } from "../../../src/services/render/jpeg.js";
import { encodePng } from "../../../src/services/render/png.js";
import { defaultRenderPlan, renderRgb, renderRgba } from "../../../src/services/render/renderingRule.js";
import { loadSharp } from "../../../src/services/render/sharpImage.js";
import { decodePng } from "../../helpers/pngDecode.js";

/** A rendered field (viridis over a smooth wave) with nodata "land": ~200 colours plus transparent. */
function rampImage(width: number, height: number): Uint8Array {
  const values = new Float64Array(width * height);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++)
      values[y * width + x] = Math.sin(y / 9) * Math.cos(x / 11) > 0.6 ? NaN : 280 + 20 * Math.sin(x / 17) * Math.cos(y / 13);
  return renderRgba(
    values,
    width,
    height,
    undefined,
    defaultRenderPlan({ anomaly: false, statistics: { min: 255, max: 305, mean: 280, stddev: 10 } }),
  );
}

/** Three bands drawn as RGB: thousands of colours (png8 must quantise), transparent where one is NaN. */
function rgbImage(width: number, height: number): Uint8Array {
  const band = (f: (x: number, y: number) => number) =>
    Float64Array.from({ length: width * height }, (_, i) => f(i % width, Math.floor(i / width)));
  return renderRgb(
    [band((x, y) => (x * y) % 97), band((x, y) => Math.sin(x / 5) + y / 40), band((x, y) => (x + 2 * y === 40 ? NaN : x - y))],
    width,
    height,
    undefined,
    { type: "minMax" },
    [],
  );
}

/** Every pixel its own colour, some translucent. */
function noise(width: number, height: number): Uint8Array {
  let seed = 7;
  return new Uint8Array(width * height * 4).map(() => (seed = (seed * 16807) % 2147483647) & 255);
}

const IMAGES: readonly [string, number, number, Uint8Array][] = [
  ["rendered ramp", 130, 70, rampImage(130, 70)],
  ["RGB composite", 64, 48, rgbImage(64, 48)],
  ["translucent noise", 23, 17, noise(23, 17)],
  ["one pixel", 1, 1, Uint8Array.of(1, 2, 3, 255)],
];

describe("sharp loads here", () => {
  it("with one libvips thread per image and no operation cache", async () => {
    const load = await loadSharp();
    assert.ok(load.ok, load.ok ? "" : load.reason);
    assert.match(load.version, /^sharp \d+\.\d+\.\d+, libvips \d+\.\d+/);
    assert.equal(load.sharp.concurrency(), 1);
    assert.deepEqual(load.sharp.cache(), {
      memory: { current: 0, high: 0, max: 0 },
      files: { current: 0, max: 0 },
      items: { current: 0, max: 0 },
    });
  });
});

describe("PNG through sharp", () => {
  for (const [name, width, height, rgba] of IMAGES) {
    it(`png32 and png24 of a ${name} decode to the pure-JS encoder's pixels`, async () => {
      for (const format of ["png32", "png24"] as const) {
        const image = await encodeImage(rgba, width, height, format);
        assert.equal(image.contentType, "image/png");
        assert.equal(image.extension, "png");
        const got = decodePng(image.bytes);
        const want = decodePng(encodePng(rgba, width, height, { format }));
        assert.equal(got.colorType, format === "png32" ? 6 : 2, format);
        assert.equal(got.bitDepth, 8);
        assert.deepEqual([got.width, got.height], [width, height]);
        assert.deepEqual(got.rgba, want.rgba, `${format} pixels`);
        if (format === "png32") assert.deepEqual(got.rgba, rgba, "png32 is the input itself");
        assert.deepEqual(got.filters, Array(height).fill(0), "rows unfiltered, as the JS encoder");
      }
    });
  }

  it("png8 and png are the JS encoder's exact palette, byte for byte", async () => {
    for (const [name, width, height, rgba] of IMAGES) {
      for (const format of ["png8", "png"] as const) {
        const image = await encodeImage(rgba, width, height, format);
        assert.deepEqual(image.bytes, encodePng(rgba, width, height, { format }), `${name} ${format}`);
        assert.equal(decodePng(image.bytes).colorType, 3);
      }
    }
  });
});

/** Quantisation tables (DQT) and each component's sampling factors (SOF0) of a JPEG. */
function jpegTables(bytes: Uint8Array): { tables: number[][]; sampling: number[] } {
  const tables: number[][] = [];
  let sampling: number[] = [];
  for (let p = 2; p < bytes.length;) {
    assert.equal(bytes[p], 0xff, `marker at ${p}`);
    const marker = bytes[p + 1];
    const length = (bytes[p + 2] << 8) | bytes[p + 3];
    const body = bytes.subarray(p + 4, p + 2 + length);
    if (marker === 0xdb) {
      for (let q = 0; q < body.length; q += 65) {
        assert.equal(body[q] >> 4, 0, "8-bit tables");
        tables[body[q] & 15] = [...body.subarray(q + 1, q + 65)];
      }
    }
    if (marker === 0xc0) sampling = Array.from({ length: body[5] }, (_, i) => body[6 + 3 * i + 1]);
    if (marker === 0xda) break;
    p += 2 + length;
  }
  return { tables, sampling };
}

/** Mean and largest absolute channel error of a decoded JPEG against opaque RGBA. */
function jpegError(bytes: Uint8Array, rgba: Uint8Array): { mean: number; max: number } {
  const d = jpeg.decode(bytes, { useTArray: true });
  let sum = 0;
  let max = 0;
  let n = 0;
  for (let i = 0; i < rgba.length; i += 4)
    for (let c = 0; c < 3; c++) {
      const e = Math.abs(d.data[i + c] - rgba[i + c]);
      sum += e;
      max = Math.max(max, e);
      n++;
    }
  return { mean: sum / n, max };
}

describe("JPEG through sharp", () => {
  const width = 130;
  const height = 70;
  const opaque = rampImage(width, height).map((v, i) => (i % 4 === 3 ? 255 : v));

  it("has jpeg-js's quantisation tables at every quality, and no chroma subsampling", async () => {
    for (const quality of [1, 10, 50, 75, 90, 100]) {
      const image = await encodeImage(opaque, width, height, "jpg", { quality });
      assert.equal(image.contentType, "image/jpeg");
      assert.equal(image.extension, "jpg");
      const got = jpegTables(image.bytes);
      const want = jpegTables(encodeJpeg(opaque, width, height, { quality }));
      assert.deepEqual(got.tables, want.tables, `quality ${quality}`);
      assert.deepEqual(got.sampling, [0x11, 0x11, 0x11], "4:4:4");
      assert.deepEqual(want.sampling, [0x11, 0x11, 0x11]);
    }
  });

  it("decodes as close to the source as jpeg-js's JPEG", async () => {
    for (const quality of [30, 75, 95]) {
      const sharpError = jpegError((await encodeImage(opaque, width, height, "jpg", { quality })).bytes, opaque);
      const jsError = jpegError(encodeJpeg(opaque, width, height, { quality }), opaque);
      assert.ok(sharpError.mean <= jsError.mean * 1.1 + 0.1, `quality ${quality}: mean ${sharpError.mean} vs ${jsError.mean}`);
      assert.ok(sharpError.max <= jsError.max + 3, `quality ${quality}: max ${sharpError.max} vs ${jsError.max}`);
    }
  });

  it("shows white, or jpeg-js's composite, under transparent pixels", async () => {
    const rgba = rampImage(width, height);
    const flat = decodePng(encodePng(rgba, width, height, { format: "png24" })).rgba; // JS composite over white
    const error = jpegError((await encodeImage(rgba, width, height, "jpg", { quality: 95 })).bytes, flat);
    assert.ok(error.mean < 1.5 && error.max <= 24, `mean ${error.mean}, max ${error.max}`);
  });
});

describe("encodeImage", () => {
  it("jpgpng is an exact PNG32 when a pixel is transparent and a JPEG otherwise", async () => {
    const rgba = rampImage(40, 30);
    const png = await encodeImage(rgba, 40, 30, "jpgpng");
    assert.equal(png.contentType, "image/png");
    assert.equal(png.extension, "png");
    assert.equal(decodePng(png.bytes).colorType, 6);
    assert.deepEqual(decodePng(png.bytes).rgba, rgba);
    const opaque = rgba.map((v, i) => (i % 4 === 3 ? 255 : v));
    const jpg = await encodeImage(opaque, 40, 30, "jpgpng", { quality: 80 });
    assert.equal(jpg.contentType, "image/jpeg");
    assert.equal(jpg.extension, "jpg");
    assert.deepEqual([...jpg.bytes.subarray(0, 2)], [0xff, 0xd8]);
  });

  it("the js encoder gives the pure-JS encoders' bytes", async () => {
    const [, width, height, rgba] = IMAGES[0];
    for (const format of ["png", "png8", "png24", "png32"] as const)
      assert.deepEqual(
        (await encodeImage(rgba, width, height, format, { encoder: "js" })).bytes,
        encodePng(rgba, width, height, { format }),
      );
    assert.deepEqual(
      (await encodeImage(rgba, width, height, "jpg", { encoder: "js", quality: 60 })).bytes,
      encodeJpeg(rgba, width, height, { quality: 60 }),
    );
  });

  it("bad sizes and qualities are RangeErrors with either encoder", async () => {
    const rgba = new Uint8Array(4 * 4 * 4);
    for (const encoder of ["sharp", "js"] as const) {
      for (const format of ["png32", "png24", "png8", "jpg"] as const)
        await assert.rejects(encodeImage(rgba, 4, 5, format, { encoder }), /64 bytes of RGBA for a 4x5 image \(expected 80\)/);
      await assert.rejects(encodeImage(rgba, 0, 4, "png32", { encoder }), /size must be positive integers/);
      await assert.rejects(encodeImage(rgba, 4, 4, "jpg", { encoder, quality: 0 }), /quality must be 1..100/);
      await assert.rejects(encodeImage(rgba, 4, 4, "jpg", { encoder, quality: 101 }), /quality must be 1..100/);
    }
  });
});

describe("when sharp cannot load", () => {
  it("encodes with the pure-JS encoders, and the server says so once at start", async () => {
    const dir = await mkdtemp(join(tmpdir(), "strata-nosharp-"));
    try {
      // A resolve hook that refuses "sharp", as a missing or broken install would.
      const hook = join(dir, "noSharp.mjs");
      await writeFile(
        hook,
        `export async function resolve(specifier, context, next) {
  if (specifier === "sharp") throw new Error("Could not load the \\"sharp\\" module (refused by the test)");
  return next(specifier, context);
}`,
      );
      const register = join(dir, "register.mjs");
      await writeFile(register, `import { register } from "node:module";\nregister(${JSON.stringify(new URL(`file://${hook}`).href)});\n`);
      const script = join(dir, "run.mts");
      const src = new URL("../../../src/", import.meta.url).href;
      await writeFile(
        script,
        `import { encodeImage } from ${JSON.stringify(`${src}services/render/encodeImage.ts`)};
import { encodePng } from ${JSON.stringify(`${src}services/render/png.ts`)};
import { encodeJpeg } from ${JSON.stringify(`${src}services/render/jpeg.ts`)};
import { loadSharp } from ${JSON.stringify(`${src}services/render/sharpImage.ts`)};
import { resolveServeConfig } from ${JSON.stringify(`${src}cli/serveConfig.ts`)};
import { startStrata } from ${JSON.stringify(`${src}cli/startStrata.ts`)};
const rgba = new Uint8Array(8 * 8 * 4).map((_, i) => (i * 37) & 255);
const same = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);
const load = await loadSharp();
const png = (await encodeImage(rgba, 8, 8, "png32")).bytes;
const jpg = (await encodeImage(rgba, 8, 8, "jpg", { quality: 70 })).bytes;
const lines = [];
const stream = { write: (line) => void lines.push(JSON.parse(line)) };
const config = resolveServeConfig({ port: "0", "data-dir": ${JSON.stringify(join(dir, "data"))}, "no-samples": true, workers: "1" }, {});
const strata = await startStrata(config, { logger: { level: "warn", stream } });
await strata.close();
console.log(JSON.stringify({
  load,
  png: same(png, encodePng(rgba, 8, 8, { format: "png32" })),
  jpg: same(jpg, encodeJpeg(rgba, 8, 8, { quality: 70 })),
  warnings: lines.filter((l) => l.level === 40).map((l) => l.msg),
}));
`,
      );
      const { stdout } = await promisify(execFile)(process.execPath, ["--import", register, "--import", "tsx", script], {
        cwd: new URL("../../../", import.meta.url).pathname,
        timeout: 60_000,
      });
      const result = JSON.parse(stdout.trim().split("\n").at(-1)!) as {
        load: { ok: boolean; reason: string };
        png: boolean;
        jpg: boolean;
        warnings: string[];
      };
      assert.deepEqual(result.load, { ok: false, reason: 'Could not load the "sharp" module (refused by the test)' });
      assert.ok(result.png, "png32 by png.ts");
      assert.ok(result.jpg, "jpg by jpeg-js");
      assert.deepEqual(result.warnings, [
        'sharp could not load (Could not load the "sharp" module (refused by the test)): PNG and JPEG are encoded by the slower pure-JavaScript encoders',
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
