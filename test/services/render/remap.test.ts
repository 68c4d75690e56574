/**
 * The Remap raster function (src/services/render/remap.ts) on hand-worked cases: [min, max)
 * ranges, NoData ranges over input ranges, AllowUnmatched and ReplacementValue, overlaps, and
 * the class-breaks rule the Maps SDK sends, end to end through parseRenderingRule/renderRgba.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { type RemapSpec, applyRemap, parseRemap } from "../../../src/services/render/remap.js";
import { type RenderPlan, parseRenderingRule as parseRule, renderRgba } from "../../../src/services/render/renderingRule.js";

function parseRenderingRule(rule: unknown): RenderPlan {
  const plan = parseRule(rule);
  assert.ok(plan, "a plan");
  return plan;
}

/** A Remap from arguments with ArcGIS's names (matched by lower case, as renderingRule.ts reads them). */
const remap = (args: Record<string, unknown>): RemapSpec => {
  const lower = new Map(Object.entries(args).map(([k, v]) => [k.toLowerCase(), v]));
  return parseRemap((k) => lower.get(k));
};
const apply = (values: number[], spec: RemapSpec, nodata?: number): number[] => [...applyRemap(values, nodata, spec)];

describe("applyRemap", () => {
  const twoClasses = { InputRanges: [0, 10, 10, 20], OutputValues: [1, 2] };

  test("[min, max) ranges; unmatched values keep theirs by default; NaN and nodata stay NoData", () => {
    assert.deepEqual(apply([0, 9.99, 10, 19.99, 20, -1, NaN, -9999], remap(twoClasses), -9999), [1, 1, 2, 2, 20, -1, NaN, NaN]);
  });

  test("AllowUnmatched false: unmatched values become NoData, or ReplacementValue when given", () => {
    assert.deepEqual(apply([5, 20, -1], remap({ ...twoClasses, AllowUnmatched: false })), [1, NaN, NaN]);
    assert.deepEqual(apply([5, 20, -1], remap({ ...twoClasses, AllowUnmatched: false, ReplacementValue: 0 })), [1, 0, 0]);
  });

  test("NoData ranges win over input ranges; a range with min = max matches that value", () => {
    const spec = remap({ ...twoClasses, NoDataRanges: [5, 6, 30, 30] });
    assert.deepEqual(apply([4.9, 5, 5.5, 6, 30, 30.5], spec), [1, NaN, NaN, 1, NaN, 30.5]);
    assert.deepEqual(apply([3, 3.5], remap({ InputRanges: [3, 3], OutputValues: [9] })), [9, 3.5]);
  });

  test("overlapping ranges: the one listed last wins; IsLastInputRangeInclusive takes the last max in", () => {
    assert.deepEqual(apply([2, 7, 12], remap({ InputRanges: [0, 10, 5, 15], OutputValues: [1, 2] })), [1, 2, 2]);
    assert.deepEqual(apply([20], remap({ ...twoClasses, IsLastInputRangeInclusive: true })), [2]);
  });
});

describe("parseRemap refuses, saying why", () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ InputRanges: [0, 10, 20], OutputValues: [1] }, /InputRanges must list \[min, max\) pairs flat/],
    [{ InputRanges: [0, 10], OutputValues: [1, 2] }, /OutputValues has 2 value\(s\) for 1 InputRanges pair/],
    [{ InputRanges: [10, 0], OutputValues: [1] }, /InputRanges: pair 0 has min 10 above max 0/],
    [{ InputRanges: "0,10", OutputValues: [1] }, /InputRanges must be a list of finite numbers/],
    [{ NoDataRanges: [0, null] }, /NoDataRanges must be a list of finite numbers/],
    [{}, /a Remap needs InputRanges with OutputValues, or NoDataRanges/],
    [{ InputRanges: [0, 1], OutputValues: [1], AllowUnmatched: "no" }, /AllowUnmatched must be true or false/],
    [{ InputRanges: [0, 1], OutputValues: [1], ReplacementValue: "0" }, /ReplacementValue must be a finite number/],
    [{ UseTable: true, InputRanges: [0, 1], OutputValues: [1] }, /UseTable .* is not supported/],
  ];
  for (const [args, reason] of cases) test(JSON.stringify(args), () => assert.throws(() => remap(args), reason));
});

describe("in a renderingRule", () => {
  test("the Maps SDK's class-breaks rule (a Colormap over a Remap) colours each class; other values are transparent", () => {
    // From scripts/goldens/sdk_rendering_rules.mjs: a ClassBreaksRenderer with breaks 0-10 red,
    // 10-20 green, 20-30 blue, as @arcgis/core 5.1.25 converts it.
    const rule =
      '{"rasterFunctionArguments":{"Colormap":[[0,255,0,0],[1,0,255,0],[2,0,0,255]],"Raster":{"rasterFunctionArguments":' +
      '{"InputRanges":[0,10.0001,10.0001,20.0001,20.0001,30.0001],"OutputValues":[0,1,2],"NoDataRanges":[]},' +
      '"rasterFunction":"Remap","variableName":"Raster"}},"rasterFunction":"Colormap"}';
    const rgba = renderRgba([5, 10, 15, 25, 35, -1.5, NaN], 7, 1, undefined, parseRenderingRule(rule));
    const px = (i: number): number[] => [...rgba.subarray(i * 4, i * 4 + 4)];
    assert.deepEqual([0, 1, 2, 3, 4, 5, 6].map(px), [
      [255, 0, 0, 255],
      [255, 0, 0, 255], // 10 is in the first class's [0, 10.0001)
      [0, 255, 0, 255],
      [0, 0, 255, 255],
      [0, 0, 0, 0], // 35 keeps its value, which the colormap does not list
      [0, 0, 0, 0],
      [0, 0, 0, 0],
    ]);
  });

  test("a Stretch over a Remap stretches the remapped values (not the dataset's statistics)", () => {
    const plan = parseRenderingRule({
      rasterFunction: "Stretch",
      rasterFunctionArguments: {
        StretchType: 5,
        Raster: { rasterFunction: "Remap", rasterFunctionArguments: { InputRanges: [0, 10, 10, 20], OutputValues: [100, 200] } },
      },
    });
    // Remapped: [100, 200, 200]; min-max over them: 0 and 255, whatever the dataset's statistics.
    const rgba = renderRgba([5, 15, 12], 3, 1, undefined, plan, { min: -50, max: 500, mean: 0, stddev: 1 });
    assert.deepEqual([rgba[0], rgba[4], rgba[8]], [0, 255, 255]);
  });
});
