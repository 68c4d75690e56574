/**
 * Colour spaces and ArcGIS colour ramps (src/services/render/colorSpaces.ts, colorRampJson.ts,
 * esriColorRamps.ts, arcgisColormaps.ts) against test/golden/render/colour_ramps.json, which
 * scripts/goldens/make_colour_ramp_goldens.py computes with scikit-image's conversions, and
 * against the tables the ArcGIS Maps SDK itself draws (@arcgis/core in node_modules).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";

import { ARCGIS_COLORMAP_NAMES, arcgisColormapTable } from "../../../src/services/render/arcgisColormaps.js";
import { type ColorRampSpec, parseColorRamp, rampTable, weightedRampTable } from "../../../src/services/render/colorRampJson.js";
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

/** The Maps SDK's own colour code (Esri's implementation, not Strata's). */
const SDK = new URL("../../../node_modules/@arcgis/core/", import.meta.url).href;
interface SdkRamps {
  colorRampDict: { fromJSON(name: string): string };
  getColorRampJSON(id: string): unknown;
  convertColorRampToColors(ramp: unknown, options: { numColors: number }): number[][];
}
interface SdkColormaps {
  getColormapByName(name: string): number[][] | null;
}

describe("against the Maps SDK's own tables", () => {
  test("each of the 57 named ramps is within 1 of the SDK's (it steps by increments; scikit-image agrees with Strata exactly)", async () => {
    const sdk = (await import(`${SDK}renderers/support/colorRampUtils.js`)) as SdkRamps;
    for (const name of ESRI_RAMP_NAMES) {
      const theirs = sdk.convertColorRampToColors(sdk.getColorRampJSON(sdk.colorRampDict.fromJSON(name)), { numColors: 256 });
      assert.ok(maxDiff(triples(rampTable(esriNamedRamp(name)!)), theirs) <= 1, name);
    }
  });

  test("ArcGIS's predefined colormaps (ColormapName) are the SDK's exactly; Random is the same every time", async () => {
    const sdk = (await import(`${SDK}layers/raster/functions/colormaps.js`)) as SdkColormaps;
    for (const name of ARCGIS_COLORMAP_NAMES.filter((n) => n !== "Random")) {
      const theirs = sdk.getColormapByName(name.toLowerCase())!.map((e) => e.slice(1, 4));
      assert.equal(maxDiff(triples(arcgisColormapTable(name)!), theirs), 0, name);
    }
    assert.deepEqual(arcgisColormapTable("random"), arcgisColormapTable("Random"));
    assert.equal(arcgisColormapTable("Elevation #1"), undefined);
  });
});

describe("weightedRampTable", () => {
  test("hand-worked: parts take their weights' share, HSV black -> red (1) then red -> white (3)", () => {
    const hsv = (from: [number, number, number], to: [number, number, number]) =>
      ({ type: "algorithmic", algorithm: "esriHSVAlgorithm", fromColor: from, toColor: to }) as const;
    // 5 entries at 0, 1/4, 1/2, 3/4, 1 of the ramp: the first part ends at 1/4; then white's
    // saturation falls from 1 by thirds (white takes red's hue): 255·(1 − s) = 0, 85, 170, 255.
    const lut = weightedRampTable([hsv([0, 0, 0], [255, 0, 0]), hsv([255, 0, 0], [255, 255, 255])], [1, 3], 5);
    assert.deepEqual([...lut], [0, 0, 0, 255, 0, 0, 255, 85, 85, 255, 170, 170, 255, 255, 255]);
    assert.throws(() => weightedRampTable([hsv([0, 0, 0], [1, 1, 1])], [0], 5), /one positive weight per part/);
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
