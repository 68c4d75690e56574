/**
 * Colour spaces and ArcGIS colour ramps (src/services/render/colorSpaces.ts, colorRampJson.ts,
 * esriColorRamps.ts) against test/golden/render/colour_ramps.json, which
 * scripts/goldens/make_colour_ramp_goldens.py computes with scikit-image's conversions.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";

import { type ColorRampSpec, parseColorRamp, rampTable } from "../../../src/services/render/colorRampJson.js";
import { hsvToRgb, labToLch, labToRgb, lchToLab, rgbToHsv, rgbToLab } from "../../../src/services/render/colorSpaces.js";
import { ESRI_RAMP_NAMES, esriNamedRamp } from "../../../src/services/render/esriColorRamps.js";

interface Golden {
  conversions: { rgb: [number, number, number]; hsv: number[]; lab: number[]; lch: number[] }[];
  ramps: { label: string; ramp: unknown; table: number[][] }[];
  named: { name: string; table: number[][] }[];
}
const golden = JSON.parse(readFileSync(new URL("../../golden/render/colour_ramps.json", import.meta.url), "utf8")) as Golden;

const close = (a: number, b: number, tol: number, what: string): void => assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} vs ${b}`);

/** Entries of a 768-byte table as [r, g, b] triples. */
const triples = (lut: Uint8Array): number[][] => Array.from({ length: 256 }, (_, i) => [...lut.subarray(i * 3, i * 3 + 3)]);

/** Largest channel difference between two tables. */
function maxDiff(a: number[][], b: number[][]): number {
  let m = 0;
  a.forEach((c, i) => c.forEach((x, ch) => (m = Math.max(m, Math.abs(x - b[i][ch])))));
  return m;
}

describe("colour spaces match scikit-image", () => {
  for (const { rgb, hsv, lab, lch } of golden.conversions) {
    test(`rgb ${rgb.join(",")}`, () => {
      const c = { r: rgb[0], g: rgb[1], b: rgb[2] };
      const h = rgbToHsv(c);
      if (h.s > 0) close(h.h, hsv[0], 1e-9, "hue");
      close(h.s, hsv[1], 1e-12, "saturation");
      close(h.v, hsv[2], 1e-12, "value");
      const l = rgbToLab(c);
      close(l.l, lab[0], 1e-4, "L");
      close(l.a, lab[1], 1e-4, "a");
      close(l.b, lab[2], 1e-4, "b");
      const p = labToLch(l);
      close(p.c, lch[1], 1e-4, "chroma");
      if (p.c > 1e-3) close(p.h, lch[2], 1e-4, "hue angle");
      // Round trips come back to the colour.
      for (const back of [hsvToRgb(h), labToRgb(l), labToRgb(lchToLab(p))]) {
        close(back.r, rgb[0], 1e-6, "r");
        close(back.g, rgb[1], 1e-6, "g");
        close(back.b, rgb[2], 1e-6, "b");
      }
    });
  }
});

describe("algorithmic and multipart ramps match the golden tables", () => {
  for (const { label, ramp, table } of golden.ramps) {
    test(label, () => {
      const lut = triples(rampTable(parseColorRamp(ramp)));
      assert.equal(maxDiff(lut, table), 0);
    });
  }
});

describe("ArcGIS's named ramps", () => {
  for (const { name, table } of golden.named) {
    test(name, () => {
      const lut = triples(rampTable(esriNamedRamp(name)!));
      assert.equal(maxDiff(lut, table), 0);
    });
  }

  test("names match case-insensitively; the list is the Maps SDK's 57", () => {
    assert.equal(ESRI_RAMP_NAMES.length, 57);
    assert.deepEqual(esriNamedRamp("elevation #1"), esriNamedRamp("Elevation #1"));
    assert.equal(esriNamedRamp("Elevation #3"), undefined);
    // A one-part ramp is algorithmic, and its ends are its stops exactly.
    const lut = rampTable(esriNamedRamp("Black to White")!);
    assert.deepEqual([...lut.subarray(0, 3), ...lut.subarray(765)], [0, 0, 0, 255, 255, 255]);
  });
});

describe("parseColorRamp", () => {
  test("hand-worked: a Lab ramp between equal colours is constant; HSV red to blue turns through magenta", () => {
    const flat = rampTable({ type: "algorithmic", algorithm: "esriCIELabAlgorithm", fromColor: [10, 20, 30], toColor: [10, 20, 30] });
    assert.deepEqual([...flat.subarray(381, 384)], [10, 20, 30]);
    // Red (0°) to blue (240°): the short way is down through 300° (magenta) at the middle.
    const hsv = rampTable({ type: "algorithmic", algorithm: "esriHSVAlgorithm", fromColor: [255, 0, 0], toColor: [0, 0, 255] });
    const mid = [...hsv.subarray(127 * 3, 127 * 3 + 3)];
    assert.ok(mid[0] > 200 && mid[1] === 0 && mid[2] > 200, `magenta expected, got ${mid}`);
  });

  test("the algorithm defaults to CIE Lab, as the SDK sends it", () => {
    const r = parseColorRamp({ type: "algorithmic", fromColor: [0, 0, 0], toColor: [255, 255, 255] }) as ColorRampSpec;
    assert.equal(r.type === "algorithmic" && r.algorithm, "esriCIELabAlgorithm");
  });

  test("refuses malformed ramps, saying what is wrong", () => {
    const bad: [unknown, RegExp][] = [
      [[1, 2], /must be a JSON object/],
      [{ type: "gradient" }, /type must be "algorithmic" or "multipart"/],
      [{ type: "algorithmic", fromColor: [0, 0], toColor: [0, 0, 0] }, /fromColor must be \[r, g, b\]/],
      [{ type: "algorithmic", fromColor: [0, 0, 0], toColor: [0, 0, 300] }, /toColor must be/],
      [{ type: "algorithmic", fromColor: [0, 0, 0], toColor: [0, 0, 0], algorithm: "esriRGBAlgorithm" }, /algorithm must be one of/],
      [{ type: "multipart", colorRamps: [] }, /non-empty colorRamps/],
      [{ type: "multipart", colorRamps: [{ type: "multipart" }] }, /colorRamps\[0\]: type must be "algorithmic"/],
    ];
    for (const [json, message] of bad) assert.throws(() => parseColorRamp(json), message);
  });
});
