// The renderingRule JSON that @arcgis/core (the ArcGIS Maps SDK for JavaScript, 5.1.25 in
// node_modules) sends with exportImage for an ImageryLayer's renderer when the format is png or
// jpg: its own convertRendererToRenderingRule, as ExportImageServiceParameters calls it for a
// one-band f32 service (convertColorRampToColormap false: the service is 10.6 or later;
// convertToRFT false: the layer has no raster function template). Run from the repository
// root: node scripts/goldens/sdk_rendering_rules.mjs; test/http/renderingRules.test.ts holds
// the output, one rule per renderer.
const base = new URL("../../node_modules/@arcgis/core/", import.meta.url).href;
const { default: RasterStretchRenderer } = await import(base + "renderers/RasterStretchRenderer.js");
const { default: UniqueValueRenderer } = await import(base + "renderers/UniqueValueRenderer.js");
const { default: ClassBreaksRenderer } = await import(base + "renderers/ClassBreaksRenderer.js");
const { default: MultipartColorRamp } = await import(base + "rest/support/MultipartColorRamp.js");
const { default: AlgorithmicColorRamp } = await import(base + "rest/support/AlgorithmicColorRamp.js");
const { convertRendererToRenderingRule } = await import(base + "layers/support/imageryRendererUtils.js");
const { getColorRampJSON } = await import(base + "renderers/support/colorRampUtils.js");

const context = {
  pixelType: "f32",
  dataType: "generic",
  bandNames: ["SST"],
  convertColorRampToColormap: false,
  convertToRFT: false,
  bandCount: 1,
};
const named = (id) => {
  const json = getColorRampJSON(id);
  return json.type === "multipart" ? MultipartColorRamp.fromJSON(json) : AlgorithmicColorRamp.fromJSON(json);
};
const fill = (color) => ({ type: "simple-fill", color });
const renderers = {
  noneElevation1: new RasterStretchRenderer({ stretchType: "none", colorRamp: named("elevation1") }),
  standardDeviationElevation1: new RasterStretchRenderer({ stretchType: "standard-deviation", colorRamp: named("elevation1") }),
  histogramEqualizationElevation1: new RasterStretchRenderer({ stretchType: "histogram-equalization", colorRamp: named("elevation1") }),
  minMaxElevation1: new RasterStretchRenderer({ stretchType: "min-max", colorRamp: named("elevation1") }),
  percentClipElevation1: new RasterStretchRenderer({ stretchType: "percent-clip", colorRamp: named("elevation1") }),
  sigmoidElevation1: new RasterStretchRenderer({ stretchType: "sigmoid", colorRamp: named("elevation1") }),
  minMaxDraElevation1: new RasterStretchRenderer({ stretchType: "min-max", dynamicRangeAdjustment: true, colorRamp: named("elevation1") }),
  standardDeviationDraTemperature: new RasterStretchRenderer({
    stretchType: "standard-deviation",
    numberOfStandardDeviations: 2.5,
    dynamicRangeAdjustment: true,
    colorRamp: named("temperature"),
  }),
  percentClipDraYellowToRed: new RasterStretchRenderer({
    stretchType: "percent-clip",
    minPercent: 2,
    maxPercent: 3,
    dynamicRangeAdjustment: true,
    colorRamp: named("yellow-to-red"),
  }),
  histogramEqualizationDraSlope: new RasterStretchRenderer({
    stretchType: "histogram-equalization",
    dynamicRangeAdjustment: true,
    colorRamp: named("slope"),
  }),
  sigmoidDraGrey: new RasterStretchRenderer({ stretchType: "sigmoid", sigmoidStrengthLevel: 3, dynamicRangeAdjustment: true }),
  minMaxGammaDraGrey: new RasterStretchRenderer({ stretchType: "min-max", dynamicRangeAdjustment: true, useGamma: true, gamma: [2] }),
  minMaxStatisticsHsv: new RasterStretchRenderer({
    stretchType: "min-max",
    customStatistics: [{ min: 0, max: 30, avg: 15, stddev: 5 }],
    colorRamp: new AlgorithmicColorRamp({ fromColor: [10, 20, 200], toColor: [250, 240, 10], algorithm: "hsv" }),
  }),
  minMaxDraMultipart: new RasterStretchRenderer({
    stretchType: "min-max",
    dynamicRangeAdjustment: true,
    colorRamp: new MultipartColorRamp({
      colorRamps: [
        new AlgorithmicColorRamp({ fromColor: [0, 0, 128], toColor: [255, 255, 255], algorithm: "lab-lch" }),
        new AlgorithmicColorRamp({ fromColor: [255, 255, 255], toColor: [128, 0, 0], algorithm: "cie-lab" }),
      ],
    }),
  }),
  uniqueValue: new UniqueValueRenderer({
    field: "Value",
    uniqueValueInfos: [
      { value: 1, symbol: fill([255, 0, 0]) },
      { value: 2, symbol: fill([0, 0, 255]) },
    ],
  }),
  classBreaks: new ClassBreaksRenderer({
    field: "Value",
    classBreakInfos: [
      { minValue: 0, maxValue: 10, symbol: fill([255, 0, 0]) },
      { minValue: 10, maxValue: 20, symbol: fill([0, 255, 0]) },
      { minValue: 20, maxValue: 30, symbol: fill([0, 0, 255]) },
    ],
  }),
};
for (const [name, renderer] of Object.entries(renderers)) {
  console.log(`  ${name}: ${JSON.stringify(JSON.stringify(convertRendererToRenderingRule(renderer, context).toJSON()))},`);
}
