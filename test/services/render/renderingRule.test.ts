/**
 * Tests of the renderingRule parser and the renderer (src/services/render/renderingRule.ts):
 * every supported form, every refusal (each names renderingRule and the reason), the default
 * plans, and RGBA output.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";

import { InvalidInputError } from "../../../src/cube/errors.js";
import { colorRamp } from "../../../src/services/render/colormaps.js";
import {
  type RenderPlan,
  defaultRenderPlan,
  parseRenderingRule as parseRule,
  renderNeedsAllPixels,
  renderRgba,
} from "../../../src/services/render/renderingRule.js";

/** A rule's plan (these rules all have one; `{}` and None are tested apart). */
function parseRenderingRule(rule: unknown): RenderPlan {
  const plan = parseRule(rule);
  assert.ok(plan, "a plan");
  return plan;
}

/** Colour-ramp tables scikit-image computed (scripts/goldens/make_colour_ramp_goldens.py). */
const RAMP_GOLDEN = JSON.parse(readFileSync(new URL("../../golden/render/colour_ramps.json", import.meta.url), "utf8")) as {
  ramps: { label: string; ramp: unknown; table: number[][] }[];
  named: { name: string; table: number[][] }[];
};
/** A golden table as a palette's RGBA entries. */
const goldenPalette = (table: number[][]): number[][] => table.map((c) => [...c, 255]);
const paletteEntries = (palette: Uint8Array): number[][] => Array.from({ length: 256 }, (_, i) => entry(palette, i));

const stretchRule = (args: Record<string, unknown>): Record<string, unknown> => ({
  rasterFunction: "Stretch",
  rasterFunctionArguments: args,
});
const colormapRule = (args: Record<string, unknown>): Record<string, unknown> => ({
  rasterFunction: "Colormap",
  rasterFunctionArguments: args,
});

function stretchPlan(plan: RenderPlan): Extract<RenderPlan, { kind: "stretch" }> {
  assert.equal(plan.kind, "stretch");
  return plan as Extract<RenderPlan, { kind: "stretch" }>;
}

/** RGBA of palette entry i. */
const entry = (palette: Uint8Array, i: number): number[] => [...palette.subarray(i * 4, i * 4 + 4)];
const rampEntry = (name: string, i: number): number[] => [...colorRamp(name).subarray(i * 3, i * 3 + 3), 255];

describe("parseRenderingRule accepts", () => {
  test("a Stretch as JSON text, rendered grey, with ArcGIS argument names in any case", () => {
    const plan = stretchPlan(
      parseRenderingRule(
        JSON.stringify({
          rasterfunction: "stretch",
          variableName: "Raster",
          rasterFunctionArguments: {
            stretchtype: 3,
            NUMBEROFSTANDARDDEVIATIONS: 2.5,
            Statistics: [[0, 10, 5, 1]],
            DRA: false,
            Raster: "$$",
          },
        }),
      ),
    );
    assert.deepEqual(plan.stretch, {
      type: "standardDeviation",
      numberOfStandardDeviations: 2.5,
      dra: false,
      statistics: { min: 0, max: 10, mean: 5, stddev: 1 },
    });
    assert.equal(plan.ramp, "gray");
    assert.deepEqual(entry(plan.palette, 200), [200, 200, 200, 255]);
  });

  test("each supported StretchType, by code or name", () => {
    const types = [
      [0, "none"],
      [3, "standardDeviation"],
      [5, "minMax"],
      [6, "percentClip"],
      ["MinMax", "minMax"],
      ["PercentClip", "percentClip"],
    ] as const;
    for (const [code, type] of types)
      assert.equal(stretchPlan(parseRenderingRule(stretchRule({ StretchType: code }))).stretch.type, type, String(code));
    assert.equal(stretchPlan(parseRenderingRule({ rasterFunction: "Stretch" })).stretch.type, "none");
  });

  test("percent clip, output range, gamma and DRA arguments", () => {
    const plan = stretchPlan(
      parseRenderingRule(stretchRule({ StretchType: 6, MinPercent: 1, MaxPercent: 2.5, Min: 10, Max: 200, Gamma: [1.5, 1, 1], DRA: true })),
    );
    assert.deepEqual(plan.stretch, {
      type: "percentClip",
      minPercent: 1,
      maxPercent: 2.5,
      outputMin: 10,
      outputMax: 200,
      gamma: 1.5,
      dra: true,
    });
    assert.deepEqual(stretchPlan(parseRenderingRule(stretchRule({ StretchType: 5, Gamma: 2, UseGamma: false }))).stretch, {
      type: "minMax",
    });
    assert.equal((stretchPlan(parseRenderingRule(stretchRule({ StretchType: 5, Gamma: 2 }))).stretch as { gamma?: number }).gamma, 2);
  });

  test("arguments ArcGIS clients send that change nothing here", () => {
    const plan = parseRenderingRule({
      ...stretchRule({
        type: "StretchFunctionArguments",
        StretchType: 5,
        ComputeGamma: false,
        EstimateStatsHistogram: false,
        SigmoidStrengthLevel: 2,
      }),
      outputPixelType: "U8",
    });
    assert.deepEqual(stretchPlan(plan).stretch, { type: "minMax" });
  });

  test("a named ramp Colormap over a Stretch", () => {
    const plan = stretchPlan(
      parseRenderingRule(colormapRule({ ColormapName: "viridis", Raster: stretchRule({ StretchType: 5, Statistics: [[-1, 1, 0, 0.5]] }) })),
    );
    assert.deepEqual(plan.stretch, { type: "minMax", statistics: { min: -1, max: 1, mean: 0, stddev: 0.5 } });
    assert.equal(plan.ramp, "viridis");
    assert.deepEqual(entry(plan.palette, 0), [0x44, 0x01, 0x54, 255]);
    assert.deepEqual(entry(plan.palette, 255), [0xfd, 0xe7, 0x25, 255]);
  });

  test("a named ramp alone, by ColorrampName or Colorramp, stretched min-max", () => {
    for (const key of ["ColorrampName", "colorramp", "colormapName"]) {
      const plan = stretchPlan(parseRenderingRule(colormapRule({ [key]: "RdBu_r" })));
      assert.deepEqual(plan.stretch, { type: "minMax" });
      assert.deepEqual(entry(plan.palette, 255), rampEntry("RdBu_r", 255));
    }
  });

  test("explicit Colormap entries alone colour the raw values exactly", () => {
    const plan = parseRenderingRule(
      colormapRule({
        Colormap: [
          [1, 255, 0, 0],
          [2, 0, 255, 0],
          [3, 0, 0, 255],
        ],
      }),
    );
    assert.equal(plan.kind, "colormap");
    const rgba = renderRgba(new Int16Array([1, 2, 3, 4, -1]), 5, 1, -1, plan);
    assert.deepEqual([...rgba], [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  test("explicit Colormap entries over a Stretch colour the stretched indices", () => {
    const plan = stretchPlan(
      parseRenderingRule(
        colormapRule({
          Colormap: [
            [0, 1, 2, 3],
            [255, 4, 5, 6],
          ],
          Raster: stretchRule({ StretchType: 5 }),
        }),
      ),
    );
    assert.deepEqual(entry(plan.palette, 0), [1, 2, 3, 255]);
    assert.deepEqual(entry(plan.palette, 1), [0, 0, 0, 0]);
    assert.deepEqual(entry(plan.palette, 255), [4, 5, 6, 255]);
    const rgba = renderRgba([0, 5, 10], 3, 1, undefined, plan, { min: 0, max: 10, mean: 5, stddev: 1 });
    assert.deepEqual([...rgba], [1, 2, 3, 255, 0, 0, 0, 0, 4, 5, 6, 255]);
  });
});

describe("parseRenderingRule accepts ArcGIS's colour ramps and the newer stretches", () => {
  test("a ramp by ArcGIS name (colorRampName, ColorRamp, ColormapName), any case, is the golden table", () => {
    const golden = RAMP_GOLDEN.named.find((n) => n.name === "Elevation #1")!;
    for (const args of [{ colorRampName: "Elevation #1" }, { ColorRamp: "elevation #1" }, { ColormapName: "ELEVATION #1" }]) {
      const plan = stretchPlan(parseRenderingRule(colormapRule({ ...args, Raster: stretchRule({ StretchType: 5 }) })));
      assert.deepEqual(paletteEntries(plan.palette), goldenPalette(golden.table), JSON.stringify(args));
      assert.deepEqual(plan.stretch, { type: "minMax" });
    }
  });

  test("colour-ramp JSON (algorithmic and multipart) is the golden table", () => {
    for (const { label, ramp, table } of RAMP_GOLDEN.ramps) {
      const plan = stretchPlan(parseRenderingRule(colormapRule({ colorRamp: ramp })));
      assert.deepEqual(paletteEntries(plan.palette), goldenPalette(table), label);
      assert.equal(plan.ramp, "custom");
    }
  });

  test("ArcGIS's predefined colormaps by ColormapName", () => {
    const plan = stretchPlan(parseRenderingRule(colormapRule({ ColormapName: "NDVI", Raster: stretchRule({ StretchType: 5 }) })));
    assert.equal(plan.ramp, "NDVI");
    // NDVI's first entries are blue (36, 0, 255), as ArcGIS colours water.
    assert.deepEqual(entry(plan.palette, 0), [36, 0, 255, 255]);
  });

  test("{} and the None function leave the rendering to the default; None as a chain's Raster is the source", () => {
    assert.equal(parseRule("{}"), undefined);
    assert.equal(parseRule({ rasterFunction: "None" }), undefined);
    assert.equal(parseRule('{"rasterFunction":"none","rasterFunctionArguments":{}}'), undefined);
    const plan = stretchPlan(parseRenderingRule(stretchRule({ StretchType: 5, Raster: { rasterFunction: "None" } })));
    assert.deepEqual(plan.stretch, { type: "minMax" });
    assert.equal(plan.remap, undefined);
  });

  test("a Stretch's own ColorRamp colours it", () => {
    const golden = RAMP_GOLDEN.named.find((n) => n.name === "Slope")!;
    const plan = stretchPlan(parseRenderingRule(stretchRule({ StretchType: 5, ColorRamp: "Slope" })));
    assert.deepEqual(paletteEntries(plan.palette), goldenPalette(golden.table));
  });

  test("histogram equalization and sigmoid, by code or name; a Histograms argument", () => {
    assert.equal(stretchPlan(parseRenderingRule(stretchRule({ StretchType: 4 }))).stretch.type, "histogramEqualization");
    assert.equal(
      stretchPlan(parseRenderingRule(stretchRule({ StretchType: "HistogramEqualization" }))).stretch.type,
      "histogramEqualization",
    );
    assert.deepEqual(stretchPlan(parseRenderingRule(stretchRule({ StretchType: 9, SigmoidStrengthLevel: 4 }))).stretch, {
      type: "sigmoid",
      sigmoidStrengthLevel: 4,
    });
    assert.deepEqual(stretchPlan(parseRenderingRule(stretchRule({ StretchType: "Sigmoid", SigmoidStrengthLevel: null }))).stretch, {
      type: "sigmoid",
    });
    const plan = stretchPlan(
      parseRenderingRule(stretchRule({ StretchType: 6, Histograms: [{ size: 2, min: 0, max: 1, counts: [3, 4] }] })),
    );
    assert.deepEqual(plan.stretch, { type: "percentClip", histogram: { min: 0, max: 1, counts: [3, 4] } });
  });

  test("renderNeedsAllPixels: DRA, a Remap, or nothing to fix the range in advance", () => {
    const stats = { min: 0, max: 1, mean: 0.5, stddev: 0.1 };
    assert.equal(renderNeedsAllPixels(parseRenderingRule(stretchRule({ StretchType: 5 })), stats), false);
    assert.equal(renderNeedsAllPixels(parseRenderingRule(stretchRule({ StretchType: 5, DRA: true })), stats), true);
    assert.equal(renderNeedsAllPixels(parseRenderingRule(stretchRule({ StretchType: 5 })), undefined), true);
    const remapped = stretchRule({
      StretchType: 5,
      Raster: { rasterFunction: "Remap", rasterFunctionArguments: { NoDataRanges: [0, 1] } },
    });
    assert.equal(renderNeedsAllPixels(parseRenderingRule(remapped), stats), true);
    assert.equal(renderNeedsAllPixels(parseRenderingRule(colormapRule({ Colormap: [[1, 2, 3, 4]] })), undefined), false);
  });
});

describe("parseRenderingRule refuses, naming renderingRule and the reason,", () => {
  const cases: [string, unknown, RegExp][] = [
    ["text that is not JSON", "{rasterFunction:", /not valid JSON/],
    ["JSON that is not an object", "[1, 2]", /the rule must be a JSON object/],
    ["null", null, /the rule must be a JSON object/],
    ["a rule with no rasterFunction", { rasterFunctionArguments: {} }, /has no rasterFunction/],
    ["a rasterFunction that is not a string", { rasterFunction: 5 }, /rasterFunction must be a string/],
    [
      "an unknown raster function",
      { rasterFunction: "Hillshade" },
      /raster function "Hillshade" is not supported; supported: Stretch, Colormap/,
    ],
    ["an unknown key in the rule", { rasterFunction: "Stretch", rasterFunctionArgs: {} }, /unknown key "rasterFunctionArgs"/],
    [
      "arguments that are not an object",
      { rasterFunction: "Stretch", rasterFunctionArguments: [] },
      /Stretch rasterFunctionArguments must be a JSON object/,
    ],
    [
      "an unknown argument",
      stretchRule({ NumberOfStandardDeviation: 2 }),
      /unknown key "NumberOfStandardDeviation"; accepted: StretchType/,
    ],
    ["an argument given twice in different case", stretchRule({ Min: 0, min: 1 }), /gives "min" twice/],
    [
      "an unsupported StretchType",
      stretchRule({ StretchType: 7 }),
      /Gaussian \(StretchType 7\) is not supported; supported: 0 none, 3 standard deviation, 4 histogram equalization/,
    ],
    ["an unknown StretchType", stretchRule({ StretchType: 42 }), /StretchType 42 is unknown/],
    ["a StretchType that is not a number", stretchRule({ StretchType: true }), /StretchType must be a number/],
    [
      "a non-positive NumberOfStandardDeviations",
      stretchRule({ StretchType: 3, NumberOfStandardDeviations: 0 }),
      /NumberOfStandardDeviations must be greater than 0/,
    ],
    ["a MinPercent out of range", stretchRule({ StretchType: 6, MinPercent: -1 }), /MinPercent must be at least 0 and below 100/],
    [
      "percents that clip everything",
      stretchRule({ StretchType: 6, MinPercent: 60, MaxPercent: 40 }),
      /MinPercent \+ MaxPercent must be below 100/,
    ],
    ["Min not below Max", stretchRule({ StretchType: 5, Min: 200, Max: 100 }), /Min and Max are the output range/],
    ["Max past 255", stretchRule({ StretchType: 5, Max: 1000 }), /0 <= Min < Max <= 255/],
    ["a Min that is not a number", stretchRule({ StretchType: 5, Min: "0" }), /Min must be a finite number/],
    ["a DRA that is not a boolean", stretchRule({ DRA: "yes" }), /DRA must be true or false/],
    ["a non-positive Gamma", stretchRule({ Gamma: [0] }), /Gamma must be a positive number/],
    [
      "Statistics that are not four numbers",
      stretchRule({ Statistics: [[0, 1, 2]] }),
      /Statistics must be \[\[min, max, mean, standardDeviation\]\]/,
    ],
    ["Statistics with min above max", stretchRule({ Statistics: [[5, 1, 2, 1]] }), /need min <= max/],
    ["a Colormap with no arguments", { rasterFunction: "Colormap" }, /Colormap function has no rasterFunctionArguments/],
    ["a Colormap naming no colours", colormapRule({}), /needs one of Colormap, ColormapName, ColorRamp or ColorrampName/],
    [
      "Colormap entries that are not a list",
      colormapRule({ Colormap: { 1: [255, 0, 0] } }),
      /Colormap must be a list of \[value, red, green, blue\]/,
    ],
    ["a malformed Colormap entry", colormapRule({ Colormap: [[1, 255, 0]] }), /Colormap: colormap entry 0 is not \[value, r, g, b\]/],
    [
      "an unknown ramp name",
      colormapRule({ ColormapName: "jet" }),
      /ColormapName: unknown colour ramp "jet"; use an ArcGIS colour-ramp name \(such as "Elevation #1".*or viridis/,
    ],
    ["a ramp name that is not a string", colormapRule({ ColorrampName: 3 }), /ColorrampName must be a ramp name/],
    [
      "colour-ramp JSON with an unknown algorithm",
      colormapRule({
        colorramp: { type: "algorithmic", fromColor: [0, 0, 255, 255], toColor: [255, 0, 0, 255], algorithm: "esriRGBAlgorithm" },
      }),
      /ColorRamp: algorithm must be one of esriHSVAlgorithm, esriCIELabAlgorithm, esriLabLChAlgorithm/,
    ],
    ["a Stretch over a Stretch", stretchRule({ Raster: stretchRule({}) }), /a Stretch over a Stretch is not supported/],
    [
      "a Stretch over a Colormap",
      stretchRule({ Raster: colormapRule({ ColormapName: "gray" }) }),
      /a Stretch over a Colormap is not supported/,
    ],
    [
      "a Colormap over a Colormap",
      colormapRule({ ColormapName: "gray", Raster: colormapRule({ ColormapName: "gray" }) }),
      /a Colormap over a Colormap/,
    ],
    [
      "three chained functions in the wrong order",
      colormapRule({ ColormapName: "gray", Raster: stretchRule({ Raster: stretchRule({}) }) }),
      /a Stretch over a Stretch is not supported; chain a Colormap over a Stretch over a Remap/,
    ],
    [
      "a Raster that is neither a function nor a name",
      stretchRule({ Raster: 7 }),
      /Stretch's Raster must be a raster function object or a source name/,
    ],
    [
      "a malformed nested function",
      colormapRule({
        ColormapName: "gray",
        Raster: { rasterFunction: "Stretch", rasterFunctionArguments: { StretchType: 9, SigmoidStrengthLevel: 7 } },
      }),
      /SigmoidStrengthLevel must be an integer from 1 to 6/,
    ],
    [
      "a Remap over a Stretch",
      { rasterFunction: "Remap", rasterFunctionArguments: { NoDataRanges: [0, 1], Raster: stretchRule({}) } },
      /a Remap over a Stretch is not supported/,
    ],
    [
      "a malformed Remap",
      { rasterFunction: "Remap", rasterFunctionArguments: { InputRanges: [0, 1, 2], OutputValues: [1] } },
      /Remap: InputRanges must list \[min, max\) pairs flat/,
    ],
    ["a Remap with no arguments", { rasterFunction: "Remap" }, /the Remap function has no rasterFunctionArguments/],
    [
      "an unknown Remap argument",
      { rasterFunction: "Remap", rasterFunctionArguments: { Ranges: [] } },
      /unknown key "Ranges"; accepted: InputRanges/,
    ],
    ["a raster function template", { rasterFunctionDefinition: {} }, /rasterFunctionDefinition .* is not supported/],
    ["a ColorRamp that is a list", colormapRule({ ColorRamp: [1, 2] }), /ColorRamp must be colour-ramp JSON or a ramp name/],
    ["a multipart ramp without parts, as the SDK may send", colormapRule({ colorRamp: { type: "multipart" } }), /non-empty colorRamps/],
    ["colours given twice", colormapRule({ ColormapName: "Slope", Raster: stretchRule({ ColorRamp: "Slope" }) }), /give the colours once/],
    [
      "a SigmoidStrengthLevel of 0",
      stretchRule({ StretchType: 9, SigmoidStrengthLevel: 0 }),
      /SigmoidStrengthLevel must be an integer from 1 to 6/,
    ],
    [
      "malformed Histograms",
      stretchRule({ StretchType: 4, Histograms: [{ min: 0, max: 1, counts: [-1] }] }),
      /Histograms must be \[\{min, max, counts/,
    ],
    [
      "Histograms whose size is not its counts'",
      stretchRule({ Histograms: [{ size: 3, min: 0, max: 1, counts: [1] }] }),
      /Histograms must be/,
    ],
  ];
  for (const [what, rule, reason] of cases) {
    test(what, () => {
      assert.throws(
        () => parseRenderingRule(rule),
        (e: unknown) => {
          assert.ok(e instanceof InvalidInputError, `an InvalidInputError, got ${String(e)}`);
          assert.equal(e.parameter, "renderingRule");
          assert.match(e.message, /^renderingRule: /);
          assert.match(e.message, reason);
          return true;
        },
      );
    });
  }
});

describe("defaultRenderPlan", () => {
  test("anomalies: RdBu_r over a range centred on zero, so 0 is near white, negative blue, positive red", () => {
    const stats = { min: -2, max: 5, mean: 0.3, stddev: 1 };
    const plan = stretchPlan(defaultRenderPlan({ anomaly: true, statistics: stats }));
    assert.equal(plan.ramp, "RdBu_r");
    assert.deepEqual(plan.stretch, { type: "minMax", symmetric: true, min: -5, max: 5 });
    const rgba = renderRgba(new Float32Array([-5, 0, 5, NaN]), 4, 1, undefined, plan, stats);
    assert.deepEqual([...rgba.subarray(0, 4)], rampEntry("RdBu_r", 0));
    assert.ok(rgba[4] >= 240 && rgba[5] >= 240 && rgba[6] >= 240, `zero is near white: ${rgba.subarray(4, 8)}`);
    assert.deepEqual([...rgba.subarray(8, 12)], rampEntry("RdBu_r", 255));
    assert.ok(rgba[2] > rgba[0] && rgba[8] > rgba[10], "blue below zero, red above");
    assert.equal(rgba[15], 0);
  });

  test("other outputs: viridis over the statistics' min-max", () => {
    const plan = stretchPlan(defaultRenderPlan({ anomaly: false, statistics: { min: 10, max: 20, mean: 15, stddev: 2 } }));
    assert.equal(plan.ramp, "viridis");
    assert.deepEqual(plan.stretch, { type: "minMax", symmetric: false, min: 10, max: 20 });
    const rgba = renderRgba([10, 20], 2, 1, undefined, plan);
    assert.deepEqual([...rgba], [0x44, 0x01, 0x54, 255, 0xfd, 0xe7, 0x25, 255]);
  });

  test("without statistics the range comes from the rendered values (symmetric for anomalies)", () => {
    const plan = defaultRenderPlan({ anomaly: true });
    const rgba = renderRgba([-1, 3], 2, 1, undefined, plan);
    // Range [-3, 3]: -1 -> floor(2/6 * 256) = 85; 3 -> 255
    assert.deepEqual([...rgba.subarray(0, 4)], rampEntry("RdBu_r", 85));
    assert.deepEqual([...rgba.subarray(4, 8)], rampEntry("RdBu_r", 255));
  });
});

describe("renderRgba", () => {
  test("makes nodata and NaN transparent black and everything else opaque", () => {
    const plan = parseRenderingRule(stretchRule({ StretchType: 5, Statistics: [[0, 255, 100, 50]] }));
    const rgba = renderRgba(new Float64Array([0, -9999, NaN, 255]), 2, 2, -9999, plan);
    assert.deepEqual([...rgba], [0, 0, 0, 255, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255]);
  });

  test("refuses values that do not fill width × height", () => {
    assert.throws(
      () => renderRgba([1, 2, 3], 2, 2, undefined, defaultRenderPlan({ anomaly: false })),
      /3 values for a 2x2 image \(expected 4\)/,
    );
  });
});
