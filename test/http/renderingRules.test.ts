/**
 * exportImage answers the renderingRules the ArcGIS Maps SDK for JavaScript sends (issue 12
 * §5), on the published sample sst_climatology_4deg drawn at its own cells (so each pixel is
 * one value of the slice, as xarray reads it: test/golden/export/sst_climatology_slices.json).
 * The rules are what @arcgis/core 5.1.25 produces for an ImageryLayer's renderer with format
 * png or jpg (scripts/goldens/sdk_rendering_rules.mjs printed them; each key names the
 * renderer). Expected colours: the stretch worked here from the xarray values by ArcGIS's
 * definitions, looked up in the ramp tables scikit-image computed
 * (test/golden/render/colour_ramps.json).
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { decodePng } from "../helpers/pngDecode.js";
import { type TestServer, startTestServer } from "../helpers/server.js";

const SERVICE = "/rest/services/Hosted/sst_climatology_4deg/ImageServer";

/** From scripts/goldens/sdk_rendering_rules.mjs (@arcgis/core 5.1.25), verbatim. */
const SDK_RULES = {
  noneElevation1:
    '{"rasterFunctionArguments":{"colorRampName":"Elevation #1","Raster":{"rasterFunctionArguments":{"StretchType":0,"DRA":false,"UseGamma":false,"Gamma":[],"ComputeGamma":false},"rasterFunction":"Stretch","variableName":"Raster"}},"rasterFunction":"Colormap","variableName":"Raster"}',
  standardDeviationElevation1:
    '{"rasterFunctionArguments":{"colorRampName":"Elevation #1","Raster":{"rasterFunctionArguments":{"StretchType":3,"DRA":false,"UseGamma":false,"Gamma":[],"ComputeGamma":false,"NumberOfStandardDeviations":null},"rasterFunction":"Stretch","outputPixelType":"U8","variableName":"Raster"}},"rasterFunction":"Colormap","variableName":"Raster"}',
  histogramEqualizationElevation1:
    '{"rasterFunctionArguments":{"colorRampName":"Elevation #1","Raster":{"rasterFunctionArguments":{"StretchType":4,"DRA":false,"UseGamma":false,"Gamma":[],"ComputeGamma":false},"rasterFunction":"Stretch","variableName":"Raster"}},"rasterFunction":"Colormap","variableName":"Raster"}',
  minMaxElevation1:
    '{"rasterFunctionArguments":{"colorRampName":"Elevation #1","Raster":{"rasterFunctionArguments":{"StretchType":5,"DRA":false,"UseGamma":false,"Gamma":[],"ComputeGamma":false},"rasterFunction":"Stretch","outputPixelType":"U8","variableName":"Raster"}},"rasterFunction":"Colormap","variableName":"Raster"}',
  percentClipElevation1:
    '{"rasterFunctionArguments":{"colorRampName":"Elevation #1","Raster":{"rasterFunctionArguments":{"StretchType":6,"DRA":false,"UseGamma":false,"Gamma":[],"ComputeGamma":false,"MinPercent":null,"MaxPercent":null},"rasterFunction":"Stretch","outputPixelType":"U8","variableName":"Raster"}},"rasterFunction":"Colormap","variableName":"Raster"}',
  sigmoidElevation1:
    '{"rasterFunctionArguments":{"colorRampName":"Elevation #1","Raster":{"rasterFunctionArguments":{"StretchType":9,"DRA":false,"UseGamma":false,"Gamma":[],"ComputeGamma":false,"SigmoidStrengthLevel":null},"rasterFunction":"Stretch","variableName":"Raster"}},"rasterFunction":"Colormap","variableName":"Raster"}',
  minMaxDraElevation1:
    '{"rasterFunctionArguments":{"colorRampName":"Elevation #1","Raster":{"rasterFunctionArguments":{"StretchType":5,"DRA":true,"UseGamma":false,"Gamma":[],"ComputeGamma":false},"rasterFunction":"Stretch","outputPixelType":"U8","variableName":"Raster"}},"rasterFunction":"Colormap","variableName":"Raster"}',
  standardDeviationDraTemperature:
    '{"rasterFunctionArguments":{"colorRampName":"Temperature","Raster":{"rasterFunctionArguments":{"StretchType":3,"DRA":true,"UseGamma":false,"Gamma":[],"ComputeGamma":false,"NumberOfStandardDeviations":2.5},"rasterFunction":"Stretch","outputPixelType":"U8","variableName":"Raster"}},"rasterFunction":"Colormap","variableName":"Raster"}',
  percentClipDraYellowToRed:
    '{"rasterFunctionArguments":{"colorRampName":"Yellow to Red","Raster":{"rasterFunctionArguments":{"StretchType":6,"DRA":true,"UseGamma":false,"Gamma":[],"ComputeGamma":false,"MinPercent":2,"MaxPercent":3},"rasterFunction":"Stretch","outputPixelType":"U8","variableName":"Raster"}},"rasterFunction":"Colormap","variableName":"Raster"}',
  histogramEqualizationDraSlope:
    '{"rasterFunctionArguments":{"colorRampName":"Slope","Raster":{"rasterFunctionArguments":{"StretchType":4,"DRA":true,"UseGamma":false,"Gamma":[],"ComputeGamma":false},"rasterFunction":"Stretch","variableName":"Raster"}},"rasterFunction":"Colormap","variableName":"Raster"}',
  sigmoidDraGrey:
    '{"rasterFunctionArguments":{"StretchType":9,"DRA":true,"UseGamma":false,"Gamma":[],"ComputeGamma":false,"SigmoidStrengthLevel":3},"rasterFunction":"Stretch","variableName":"Raster"}',
  minMaxGammaDraGrey:
    '{"rasterFunctionArguments":{"StretchType":5,"DRA":true,"UseGamma":true,"Gamma":[2],"ComputeGamma":false},"rasterFunction":"Stretch","outputPixelType":"U8","variableName":"Raster"}',
  minMaxStatisticsHsv:
    '{"rasterFunctionArguments":{"colorRamp":{"type":"algorithmic","algorithm":"esriHSVAlgorithm","fromColor":[10,20,200,255],"toColor":[250,240,10,255]},"Raster":{"rasterFunctionArguments":{"StretchType":5,"Statistics":[[0,30,15,5]],"DRA":false,"UseGamma":false,"Gamma":[],"ComputeGamma":false},"rasterFunction":"Stretch","outputPixelType":"U8","variableName":"Raster"}},"rasterFunction":"Colormap","variableName":"Raster"}',
  minMaxDraMultipart:
    '{"rasterFunctionArguments":{"colorRamp":{"type":"multipart","colorRamps":[{"type":"algorithmic","algorithm":"esriLabLChAlgorithm","fromColor":[0,0,128,255],"toColor":[255,255,255,255]},{"type":"algorithmic","algorithm":"esriCIELabAlgorithm","fromColor":[255,255,255,255],"toColor":[128,0,0,255]}]},"Raster":{"rasterFunctionArguments":{"StretchType":5,"DRA":true,"UseGamma":false,"Gamma":[],"ComputeGamma":false},"rasterFunction":"Stretch","outputPixelType":"U8","variableName":"Raster"}},"rasterFunction":"Colormap","variableName":"Raster"}',
  uniqueValue: '{"rasterFunctionArguments":{"Colormap":[[1,255,0,0],[2,0,0,255]]},"rasterFunction":"Colormap","variableName":"Raster"}',
  classBreaks:
    '{"rasterFunctionArguments":{"Colormap":[[0,255,0,0],[1,0,255,0],[2,0,0,255]],"Raster":{"rasterFunctionArguments":{"InputRanges":[0,10.0001,10.0001,20.0001,20.0001,30.0001],"OutputValues":[0,1,2],"NoDataRanges":[]},"rasterFunction":"Remap","variableName":"Raster"}},"rasterFunction":"Colormap"}',
} as const;

let server: TestServer;
/** Slice 0's values in row-major order from the north, null on land. */
let slice: (number | null)[];
let ramps: { ramps: { label: string; table: number[][] }[]; named: { name: string; table: number[][] }[] };

before(async () => {
  server = await startTestServer({ "allow-anonymous": true });
  const golden = JSON.parse(await readFile(new URL("../golden/export/sst_climatology_slices.json", import.meta.url), "utf8")) as {
    slices: { index: number; values: (number | null)[] }[];
  };
  slice = golden.slices.find((s) => s.index === 0)!.values;
  ramps = JSON.parse(await readFile(new URL("../golden/render/colour_ramps.json", import.meta.url), "utf8")) as typeof ramps;
});
after(async () => {
  await server.close();
});

/** The slice drawn at its own 4° cells (the file's 19..379 east), nearest neighbour. */
async function exportImage(renderingRule: string, format = "png32", extra: Record<string, string> = {}): Promise<Response> {
  const params = {
    bbox: "19,-91,379,89",
    bboxSR: "4326",
    size: "90,45",
    interpolation: "RSP_NearestNeighbor",
    sliceId: "0",
    format,
    renderingRule,
    ...extra,
  };
  return fetch(`${server.url}${SERVICE}/exportImage?${new URLSearchParams(params)}`);
}

async function rgbaOf(renderingRule: string): Promise<Uint8Array> {
  const r = await exportImage(renderingRule);
  assert.equal(r.status, 200, await r.clone().text());
  return decodePng(new Uint8Array(await r.arrayBuffer())).rgba;
}

const named = (name: string): number[][] => ramps.named.find((n) => n.name === name)!.table;
const labelled = (label: string): number[][] => ramps.ramps.find((n) => n.label.startsWith(label))!.table;
const grey: number[][] = Array.from({ length: 256 }, (_, i) => [i, i, i]);

/** Index of t in 256 equal bins over [0, 1], clamped. */
const bin256 = (t: number): number => (t <= 0 ? 0 : t >= 1 ? 255 : Math.min(255, Math.floor(t * 256)));

/** The ocean values (with their pixel) and their statistics, as a user would work them out. */
function oceanStatistics() {
  const ocean = slice.flatMap((v, i) => (v === null ? [] : [[v, i] as const]));
  const values = ocean.map(([v]) => v);
  const n = values.length;
  const min = Math.min(...values);
  const max = Math.max(...values);
  const mean = values.reduce((a, v) => a + v, 0) / n;
  const stddev = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / n);
  return { ocean, values, n, min, max, mean, stddev, sorted: [...values].sort((a, b) => a - b) };
}

/**
 * Every ocean pixel has the colour of index expected(v) in `table` (one index either side only
 * where v is within a hair of a bin edge, where float rounding may fall either way, and for at
 * most one pixel in a thousand); land is transparent.
 */
function assertColours(
  rgba: Uint8Array,
  table: number[][],
  expected: (v: number) => number,
  edge: (v: number) => boolean = () => false,
): void {
  let exact = 0;
  slice.forEach((v, i) => {
    const got = [...rgba.subarray(4 * i, 4 * i + 4)];
    if (v === null) {
      assert.equal(got[3], 0, `pixel ${i} (land) is transparent`);
      return;
    }
    const k = expected(v);
    const want = [...table[k], 255];
    if (got.join() === want.join()) {
      exact++;
      return;
    }
    const near = [k - 1, k + 1].filter((j) => j >= 0 && j < 256).some((j) => [...table[j], 255].join() === got.join());
    assert.ok(near && edge(v), `pixel ${i} value ${v}: index ${k} ${want.join()} expected, got ${got.join()}`);
  });
  const ocean = slice.filter((v) => v !== null).length;
  assert.ok(exact >= ocean - Math.ceil(ocean / 1000), `${ocean - exact} of ${ocean} pixels one index off at a bin edge`);
}

/** Whether t·256 is within 1e-6 of an integer (a bin edge). */
const onEdge = (t: number): boolean => Math.abs(t * 256 - Math.round(t * 256)) < 1e-6 * 256;

/** A linear stretch: the value's place t in [lo, hi] picks entry ⌊256 t⌋ (clamped) of `table`. */
async function assertLinearStretch(rule: string, table: number[][], lo: number, hi: number): Promise<void> {
  const t = (v: number) => (v - lo) / (hi - lo);
  assertColours(
    await rgbaOf(rule),
    table,
    (v) => bin256(t(v)),
    (v) => onEdge(t(v)),
  );
}

describe("exportImage answers the Maps SDK's stretch renderers (DRA: the drawn pixels' own statistics)", () => {
  it("min-max, Elevation #1 by name", async () => {
    const s = oceanStatistics();
    await assertLinearStretch(SDK_RULES.minMaxDraElevation1, named("Elevation #1"), s.min, s.max);
  });

  it("2.5 standard deviations, Temperature by name", async () => {
    const s = oceanStatistics();
    const lo = Math.max(s.min, s.mean - 2.5 * s.stddev);
    const hi = Math.min(s.max, s.mean + 2.5 * s.stddev);
    await assertLinearStretch(SDK_RULES.standardDeviationDraTemperature, named("Temperature"), lo, hi);
  });

  it("percent clip 2% / 3%, Yellow to Red by name", async () => {
    const s = oceanStatistics();
    const lo = s.sorted[Math.floor((s.n * 2) / 100)];
    const hi = s.sorted[s.n - 1 - Math.floor((s.n * 3) / 100)];
    await assertLinearStretch(SDK_RULES.percentClipDraYellowToRed, named("Yellow to Red"), lo, hi);
  });

  it("histogram equalization, Slope by name: 256 × the share of values at or below the value's bin", async () => {
    const s = oceanStatistics();
    const binOf = (v: number) => bin256((v - s.min) / (s.max - s.min));
    const cumulative = new Array<number>(256).fill(0);
    for (const v of s.values) cumulative[binOf(v)]++;
    for (let b = 1; b < 256; b++) cumulative[b] += cumulative[b - 1];
    assertColours(
      await rgbaOf(SDK_RULES.histogramEqualizationDraSlope),
      named("Slope"),
      (v) => bin256(cumulative[binOf(v)] / s.n),
      (v) => onEdge((v - s.min) / (s.max - s.min)),
    );
  });

  it("sigmoid strength 3, grey: 256 / (1 + e^(-6 (t - 1/2)))", async () => {
    const s = oceanStatistics();
    const y = (v: number) => 1 / (1 + Math.exp(-6 * ((v - s.min) / (s.max - s.min) - 0.5)));
    // The server tabulates the curve at 65536 steps: within 1e-4 of a bin edge either side may come.
    assertColours(
      await rgbaOf(SDK_RULES.sigmoidDraGrey),
      grey,
      (v) => bin256(y(v)),
      (v) => Math.abs(y(v) * 256 - Math.round(y(v) * 256)) < 0.03,
    );
  });

  it("min-max with gamma 2, grey: t^(1/2)", async () => {
    const s = oceanStatistics();
    const t = (v: number) => Math.sqrt((v - s.min) / (s.max - s.min));
    assertColours(
      await rgbaOf(SDK_RULES.minMaxGammaDraGrey),
      grey,
      (v) => bin256(t(v)),
      (v) => Math.abs(t(v) * 256 - Math.round(t(v) * 256)) < 0.03,
    );
  });

  it("min-max over custom Statistics [0, 30], an HSV colour-ramp JSON", async () => {
    await assertLinearStretch(SDK_RULES.minMaxStatisticsHsv, labelled("hsv, from the SDK"), 0, 30);
  });

  it("min-max, a multipart colour-ramp JSON (LCh then Lab)", async () => {
    const s = oceanStatistics();
    await assertLinearStretch(SDK_RULES.minMaxDraMultipart, labelled("multipart"), s.min, s.max);
  });
});

describe("exportImage answers the Maps SDK's renderers without DRA (the service's statistics and histograms)", () => {
  for (const key of [
    "noneElevation1",
    "standardDeviationElevation1",
    "histogramEqualizationElevation1",
    "minMaxElevation1",
    "percentClipElevation1",
    "sigmoidElevation1",
  ] as const) {
    it(key, async () => {
      const rgba = await rgbaOf(SDK_RULES[key]);
      const table = new Set(named("Elevation #1").map((c) => c.join()));
      // Colder water never gets a later ramp colour than warmer water.
      const index = new Map(named("Elevation #1").map((c, i) => [c.join(), i]));
      const s = oceanStatistics();
      const byValue = [...s.ocean].sort((a, b) => a[0] - b[0]).map(([, i]) => index.get([...rgba.subarray(4 * i, 4 * i + 3)].join()));
      slice.forEach((v, i) => {
        if (v === null) assert.equal(rgba[4 * i + 3], 0);
        else assert.ok(table.has([...rgba.subarray(4 * i, 4 * i + 3)].join()) && rgba[4 * i + 3] === 255, `pixel ${i}`);
      });
      for (let k = 1; k < byValue.length; k++) assert.ok(byValue[k]! >= byValue[k - 1]!, `${key}: colour order at ${k}`);
      // A stretch spreads the ocean over many colours (none: SST -2..30 °C is indices 0..30 as is).
      assert.ok(new Set(byValue).size > 20, `${key}: ${new Set(byValue).size} colours`);
    });
  }

  it("jpg: the same rule answers a JPEG", async () => {
    const r = await exportImage(SDK_RULES.minMaxElevation1, "jpg");
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "image/jpeg");
  });
});

describe("exportImage answers the Maps SDK's unique-value and class-breaks renderers", () => {
  it("class breaks (a Colormap over a Remap): 0-10 red, 10-20 green, 20-30 blue, others transparent", async () => {
    const rgba = await rgbaOf(SDK_RULES.classBreaks);
    slice.forEach((v, i) => {
      const got = [...rgba.subarray(4 * i, 4 * i + 4)].join();
      const want =
        v === null || v < 0 || v >= 30.0001 ? "0,0,0,0" : v < 10.0001 ? "255,0,0,255" : v < 20.0001 ? "0,255,0,255" : "0,0,255,255";
      assert.equal(got, want, `pixel ${i} value ${v}`);
    });
  });

  it("unique values (a Colormap of exact values): only pixels of exactly 1 or 2 are coloured", async () => {
    const rgba = await rgbaOf(SDK_RULES.uniqueValue);
    slice.forEach((v, i) => {
      const want = v === 1 ? "255,0,0,255" : v === 2 ? "0,0,255,255" : "0,0,0,0";
      assert.equal([...rgba.subarray(4 * i, 4 * i + 4)].join(), want, `pixel ${i} value ${v}`);
    });
  });
});

describe("exportImage with the None function", () => {
  it("draws as with no renderingRule (the service's default rendering)", async () => {
    assert.deepEqual(await rgbaOf('{"rasterFunction":"None"}'), await rgbaOf(""));
  });
});

describe("exportImage refuses a bad renderingRule with a 400 naming it and the reason", () => {
  for (const [rule, reason] of [
    ['{"rasterFunction":"Colormap","rasterFunctionArguments":{"colorRampName":"Elevation #9"}}', /unknown colour ramp "Elevation #9"/],
    ['{"rasterFunction":"Colormap","rasterFunctionArguments":{"colorRamp":{"type":"multipart"}}}', /non-empty colorRamps/],
    [
      '{"rasterFunction":"Stretch","rasterFunctionArguments":{"StretchType":8}}',
      /histogram specification \(StretchType 8\) is not supported/,
    ],
    ['{"rasterFunction":"Remap","rasterFunctionArguments":{"InputRanges":[0],"OutputValues":[]}}', /Remap: InputRanges must list/],
    ['{"rasterFunction":"Hillshade"}', /"Hillshade" is not supported; supported: Stretch, Colormap, Remap/],
  ] as const) {
    it(rule, async () => {
      const r = await exportImage(rule, "png32", { f: "json" });
      const body = (await r.json()) as { error: { code: number; details: string[]; message: string } };
      assert.equal(body.error.code, 400);
      const text = `${body.error.message} ${body.error.details.join(" ")}`;
      assert.match(text, /renderingRule/);
      assert.match(text, reason);
    });
  }
});
