/**
 * ArcGIS `renderingRule` -> render plan, and the plan applied to one band of values (RGBA).
 *
 * Supported raster functions (names and argument names match case-insensitively), chained
 * through `rasterFunctionArguments.Raster` as Colormap over Stretch over Remap, each optional:
 * - `Remap` { InputRanges, OutputValues, NoDataRanges, AllowUnmatched, ReplacementValue,
 *   IsLastInputRangeInclusive } (remap.ts), applied to the values first.
 * - `Stretch` { StretchType 0 none | 3 standard deviation | 4 histogram equalization |
 *   5 minimum-maximum | 6 percent clip | 9 sigmoid, NumberOfStandardDeviations, MinPercent,
 *   MaxPercent, SigmoidStrengthLevel, Statistics [[min, max, mean, stddev]], Histograms, DRA,
 *   Gamma, UseGamma, Min, Max, ColorRamp } (stretch.ts). As in ArcGIS, Min and Max are the
 *   OUTPUT range (default 0..255); the input range comes from Statistics, the dataset's
 *   statistics and histogram, or the pixels (DRA; and always after a Remap). Without colours
 *   a Stretch renders grey.
 * - `Colormap` { Colormap [[value, r, g, b], ...] | ColormapName | ColorRamp (a ramp name or
 *   colour-ramp JSON) | ColorrampName }, first present in that order. A ramp over no Stretch
 *   stretches min-max first; explicit entries over no Stretch look up the raw (or remapped)
 *   values.
 * A string Raster (such as "$$") or the `None` function names the source and is ignored, as
 * are `variableName` and `outputPixelType`; `{}` or `None` alone is no rule (the default). Anything else is refused with an InvalidInputError on parameter
 * renderingRule saying why.
 */
import { InvalidInputError } from "../../cube/errors.js";
import { parseColorRamp, rampTable } from "./colorRampJson.js";
import { type ColormapEntry, type ColormapLookup, colorRamp, colormapLookup } from "./colormaps.js";
import { RAMP_NAME_HINT, namedRampTable } from "./namedRamps.js";
import { type RemapSpec, applyRemap, parseRemap } from "./remap.js";
import {
  DEFAULT_MAX_PERCENT,
  DEFAULT_MIN_PERCENT,
  type PixelValues,
  type StretchSpec,
  type StretchStatistics,
  stretchNeedsPixels,
  stretchToBytes,
  symmetricRange,
} from "./stretch.js";
import type { BinnedHistogram } from "./stretchHistogram.js";

/** How a band becomes colours. */
export type RenderPlan =
  | {
      /** Stretch to indices 0..255, then colour each index from the palette. */
      readonly kind: "stretch";
      readonly stretch: StretchSpec;
      /** 256 RGBA entries (1024 bytes); alpha 0 marks indices with no colour. */
      readonly palette: Uint8Array;
      /** The ramp's name when the palette is a named ramp ("gray" for a Stretch alone, "custom" for ramp JSON). */
      readonly ramp?: string;
      /** A Remap applied to the values before they are stretched. */
      readonly remap?: RemapSpec;
    }
  | {
      /** Colour raw pixel values by exact lookup (ArcGIS Colormap with explicit entries). */
      readonly kind: "colormap";
      readonly colormap: ColormapLookup;
      /** A Remap applied to the values before they are looked up. */
      readonly remap?: RemapSpec;
    };

const PARAMETER = "renderingRule";

function invalid(reason: string): InvalidInputError {
  return new InvalidInputError(`renderingRule: ${reason}`, { parameter: PARAMETER });
}

/**
 * Parse an ArcGIS renderingRule (JSON text or the parsed object) into a plan; undefined for
 * `{}` or the `None` function, which leave the rendering to the service's default.
 * @throws InvalidInputError (parameter "renderingRule") naming what is unknown or malformed.
 * @example
 * const plan = parseRenderingRule('{"rasterFunction":"Colormap","rasterFunctionArguments":{"ColormapName":"viridis",' +
 *   '"Raster":{"rasterFunction":"Stretch","rasterFunctionArguments":{"StretchType":3,"NumberOfStandardDeviations":2}}}}');
 */
export function parseRenderingRule(rule: unknown): RenderPlan | undefined {
  let value = rule;
  if (typeof rule === "string") {
    try {
      value = JSON.parse(rule);
    } catch (e) {
      throw invalid(`it is not valid JSON (${e instanceof Error ? e.message : String(e)})`);
    }
  }
  // An empty rule, or the None function, asks for no rendering of its own: the default's.
  if (typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0) return undefined;
  const top = parseFunction(value, "the rule");
  return top && planOf(top);
}

/**
 * Whether a plan needs all the drawn pixels before it can colour any (see stretchNeedsPixels;
 * after a Remap the dataset's statistics no longer describe the values).
 * @example
 * renderNeedsAllPixels(parseRenderingRule('{"rasterFunction":"Stretch","rasterFunctionArguments":{"StretchType":5,"DRA":true}}'), stats); // true
 */
export function renderNeedsAllPixels(plan: RenderPlan, statistics: StretchStatistics | undefined): boolean {
  return plan.kind === "stretch" && stretchNeedsPixels(plan.stretch, plan.remap ? undefined : statistics);
}

/**
 * The plan Strata renders with when a request has no renderingRule: a diverging blue-white-red
 * ramp (RdBu_r) over a range centred on zero for anomalies, so zero is white and the sign reads
 * at a glance; viridis over the statistics' min-max otherwise. Without statistics the range is
 * taken from the rendered values.
 * @example
 * defaultRenderPlan({ anomaly: true, statistics: { min: -2, max: 5, mean: 0.3, stddev: 1 } }); // RdBu_r over [-5, 5]
 */
export function defaultRenderPlan(options: { anomaly: boolean; statistics?: StretchStatistics }): RenderPlan {
  const { anomaly, statistics } = options;
  const ramp = anomaly ? "RdBu_r" : "viridis";
  const range = statistics ? (anomaly ? symmetricRange(statistics) : { min: statistics.min, max: statistics.max }) : {};
  return { kind: "stretch", stretch: { type: "minMax", symmetric: anomaly, ...range }, palette: rampPalette(colorRamp(ramp)), ramp };
}

/**
 * Render one band (row-major, width × height) to RGBA bytes; nodata, NaN and values a colormap
 * does not list are transparent (alpha 0, colour 0).
 * @throws RangeError when values.length is not width × height.
 * @example
 * const rgba = renderRgba(slab.data, 512, 512, variable.nodata, defaultRenderPlan({ anomaly: false, statistics }), statistics);
 */
export function renderRgba(
  values: PixelValues,
  width: number,
  height: number,
  nodata: number | undefined,
  plan: RenderPlan,
  statistics?: StretchStatistics,
): Uint8Array {
  const n = width * height;
  if (values.length !== n) throw new RangeError(`renderRgba: ${values.length} values for a ${width}x${height} image (expected ${n})`);
  const out = new Uint8Array(n * 4);
  if (plan.remap) {
    // Remapped values are new values: NaN marks NoData, and the dataset's statistics no longer apply.
    values = applyRemap(values, nodata, plan.remap);
    nodata = undefined;
    statistics = undefined;
  }
  if (plan.kind === "stretch") {
    const { indices, valid } = stretchToBytes(values, nodata, plan.stretch, statistics);
    // One 32-bit copy per pixel; byte order is the same on both sides, so endianness is moot.
    // The palette is copied so its view is aligned whatever buffer it came in.
    const pal32 = new Uint32Array(plan.palette.slice(0, 1024).buffer);
    const out32 = new Uint32Array(out.buffer);
    for (let i = 0; i < n; i++) if (valid[i]) out32[i] = pal32[indices[i]];
    return out;
  }
  const cm = plan.colormap;
  for (let i = 0, o = 0; i < n; i++, o += 4) {
    const v = values[i];
    if (v !== v || v === nodata) continue;
    const c = cm.colorOf(v);
    if (c < 0) continue;
    out[o] = c >> 16;
    out[o + 1] = (c >> 8) & 255;
    out[o + 2] = c & 255;
    out[o + 3] = 255;
  }
  return out;
}

/**
 * Render three bands as red, green and blue (ArcGIS's RGB composite of three `bandIds`):
 * each band stretched by `stretch` with its own statistics (the default: min-max over the
 * band's range); a pixel nodata in any of the three is transparent.
 * @throws RangeError when a band's length is not width × height.
 * @example
 * const rgba = renderRgb([slope, intercept, rmse], 256, 256, NaN, { type: "minMax" }, [s0, s1, s2]);
 */
export function renderRgb(
  bands: readonly [PixelValues, PixelValues, PixelValues],
  width: number,
  height: number,
  nodata: number | undefined,
  stretch: StretchSpec,
  statistics: readonly (StretchStatistics | undefined)[],
): Uint8Array {
  const n = width * height;
  for (const b of bands) {
    if (b.length !== n) throw new RangeError(`renderRgb: ${b.length} values for a ${width}x${height} image (expected ${n})`);
  }
  const channels = bands.map((b, i) => stretchToBytes(b, nodata, stretch, statistics[i]));
  const out = new Uint8Array(n * 4);
  const [r, g, b] = channels;
  for (let i = 0, o = 0; i < n; i++, o += 4) {
    if (!(r.valid[i] && g.valid[i] && b.valid[i])) continue;
    out[o] = r.indices[i];
    out[o + 1] = g.indices[i];
    out[o + 2] = b.indices[i];
    out[o + 3] = 255;
  }
  return out;
}

/* ---------------------------------------------------------------------------------- */
/* Parsing                                                                             */
/* ---------------------------------------------------------------------------------- */

type Colors =
  { readonly type: "ramp"; readonly name: string; readonly lut: Uint8Array } | { readonly type: "lookup"; readonly lookup: ColormapLookup };

type FunctionNode =
  | { readonly fn: "stretch"; readonly spec: StretchSpec; readonly colors?: Colors; readonly inner?: FunctionNode }
  | { readonly fn: "colormap"; readonly colors: Colors; readonly inner?: FunctionNode }
  | { readonly fn: "remap"; readonly remap: RemapSpec; readonly inner?: FunctionNode };

const FUNCTION_LABELS = { stretch: "Stretch", colormap: "Colormap", remap: "Remap" } as const;

const TOP_KEYS = ["rasterFunction", "rasterFunctionArguments", "variableName", "outputPixelType"];
const RAMP_KEYS = ["ColorRamp", "ColorrampName"];
const STRETCH_KEYS = [
  "StretchType",
  "Min",
  "Max",
  "NumberOfStandardDeviations",
  "MinPercent",
  "MaxPercent",
  "SigmoidStrengthLevel",
  "Statistics",
  "Histograms",
  "DRA",
  "Gamma",
  "UseGamma",
  ...RAMP_KEYS,
  "Raster",
];
const COLORMAP_KEYS = ["Colormap", "ColormapName", ...RAMP_KEYS, "Raster"];
const REMAP_KEYS = [
  "InputRanges",
  "OutputValues",
  "NoDataRanges",
  "AllowUnmatched",
  "ReplacementValue",
  "IsLastInputRangeInclusive",
  "UseTable",
  "Raster",
];
/** Arguments ArcGIS clients send that do not change a supported rendering. */
const IGNORED_KEYS = ["type", "ComputeGamma", "EstimateStatsHistogram", "ColorSchemeType", "RemapTableType"];

/** An object's entries under lower-cased keys, refusing keys outside `known` (and `ignored`). */
function fields(obj: unknown, what: string, known: readonly string[], ignored: readonly string[] = []): Map<string, unknown> {
  if (typeof obj !== "object" || obj === null || Array.isArray(obj)) throw invalid(`${what} must be a JSON object`);
  const allowed = new Set([...known, ...ignored].map((k) => k.toLowerCase()));
  const out = new Map<string, unknown>();
  for (const [k, v] of Object.entries(obj)) {
    const key = k.toLowerCase();
    if (!allowed.has(key)) throw invalid(`${what} has an unknown key "${k}"; accepted: ${known.join(", ")}`);
    if (out.has(key)) throw invalid(`${what} gives "${k}" twice (keys are case-insensitive)`);
    out.set(key, v);
  }
  return out;
}

/** A raster function, or undefined for ArcGIS's `None` function (the source as it is). */
function parseFunction(value: unknown, what: string): FunctionNode | undefined {
  const top = fields(value, what, TOP_KEYS, ["rasterFunctionDefinition"]);
  if (top.has("rasterfunctiondefinition")) throw invalid("rasterFunctionDefinition (a raster function template) is not supported");
  const name = top.get("rasterfunction");
  if (name === undefined) throw invalid(`${what} has no rasterFunction`);
  if (typeof name !== "string") throw invalid(`${what}: rasterFunction must be a string, not ${JSON.stringify(name)}`);
  const fn = name.toLowerCase();
  if (fn === "none") return undefined;
  if (fn !== "stretch" && fn !== "colormap" && fn !== "remap") {
    throw invalid(
      `raster function "${name}" is not supported; supported: Stretch, Colormap, Remap (chained Colormap over Stretch over Remap)`,
    );
  }
  const label = FUNCTION_LABELS[fn];
  const rawArgs = top.get("rasterfunctionarguments");
  if (rawArgs === undefined && fn !== "stretch") throw invalid(`the ${label} function has no rasterFunctionArguments`);
  const known = fn === "stretch" ? STRETCH_KEYS : fn === "colormap" ? COLORMAP_KEYS : REMAP_KEYS;
  const args = fields(rawArgs ?? {}, `the ${label} rasterFunctionArguments`, known, IGNORED_KEYS);
  const raster = args.get("raster");
  // A string (or absent) Raster is the source itself; an object is a function applied first.
  const isFunction = typeof raster === "object" && raster !== null && !Array.isArray(raster);
  const inner = isFunction ? parseFunction(raster, `the ${label}'s Raster`) : undefined;
  if (raster !== undefined && !isFunction && typeof raster !== "string") {
    throw invalid(`the ${label}'s Raster must be a raster function object or a source name, not ${JSON.stringify(raster)}`);
  }
  if (fn === "remap") {
    try {
      return { fn, remap: parseRemap((k) => args.get(k)), inner };
    } catch (e) {
      throw invalid(`Remap: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  if (fn === "colormap") {
    const colors = parseColors(args);
    if (!colors) throw invalid("the Colormap function needs one of Colormap, ColormapName, ColorRamp or ColorrampName");
    return { fn, colors, inner };
  }
  const colors = parseColors(args);
  return { fn, spec: parseStretch(args), ...(colors ? { colors } : {}), inner };
}

/** The plan of a parsed chain: Colormap over Stretch over Remap, each optional, in that order. */
function planOf(top: FunctionNode): RenderPlan {
  const chain: FunctionNode[] = [];
  for (let node: FunctionNode | undefined = top; node; node = node.inner) chain.push(node);
  const order = chain.map((n) => n.fn);
  const rank = { colormap: 0, stretch: 1, remap: 2 } as const;
  for (let i = 1; i < order.length; i++) {
    if (rank[order[i]] <= rank[order[i - 1]]) {
      throw invalid(
        `a ${FUNCTION_LABELS[order[i - 1]]} over a ${FUNCTION_LABELS[order[i]]} is not supported; chain a Colormap over a Stretch over a Remap (each optional)`,
      );
    }
  }
  const find = <F extends FunctionNode["fn"]>(fn: F) => chain.find((n): n is Extract<FunctionNode, { fn: F }> => n.fn === fn);
  const colormap = find("colormap");
  const stretchNode = find("stretch");
  const remapNode = find("remap");
  const remap = remapNode ? { remap: remapNode.remap } : {};
  if (colormap && stretchNode?.colors) throw invalid("give the colours once: a Colormap over a Stretch that names a ColorRamp");
  const colors = colormap?.colors ?? stretchNode?.colors;
  const stretch = stretchNode?.spec;
  if (!colors) {
    // A Stretch alone, or a Remap alone (its values stretched min-max), renders grey.
    return {
      kind: "stretch",
      stretch: stretch ?? { type: "minMax" },
      palette: rampPalette(colorRamp("gray")),
      ...remap,
      ...(remapNode ? {} : { ramp: "gray" }),
    };
  }
  if (colors.type === "ramp") {
    return { kind: "stretch", stretch: stretch ?? { type: "minMax" }, palette: rampPalette(colors.lut), ramp: colors.name, ...remap };
  }
  if (!stretch) return { kind: "colormap", colormap: colors.lookup, ...remap };
  return { kind: "stretch", stretch, palette: lookupPalette(colors.lookup), ...remap };
}

const STRETCH_TYPES: Readonly<Record<string, StretchSpec["type"]>> = {
  "0": "none",
  none: "none",
  "3": "standardDeviation",
  standarddeviation: "standardDeviation",
  stddev: "standardDeviation",
  "4": "histogramEqualization",
  histogramequalization: "histogramEqualization",
  histogram: "histogramEqualization",
  "5": "minMax",
  minmax: "minMax",
  minimummaximum: "minMax",
  "6": "percentClip",
  percentclip: "percentClip",
  percentminimummaximum: "percentClip",
  "9": "sigmoid",
  sigmoid: "sigmoid",
};
const STRETCH_UNSUPPORTED: Readonly<Record<string, string>> = {
  "1": "the source's default stretch",
  "2": "a custom stretch",
  "7": "Gaussian",
  "8": "histogram specification",
};
const SUPPORTED_STRETCHES = "0 none, 3 standard deviation, 4 histogram equalization, 5 minimum-maximum, 6 percent clip, 9 sigmoid";

function parseStretch(args: Map<string, unknown>): StretchSpec {
  const rawType = args.get("stretchtype") ?? 0;
  if (typeof rawType !== "number" && typeof rawType !== "string")
    throw invalid(`StretchType must be a number, not ${JSON.stringify(rawType)}`);
  const type = STRETCH_TYPES[String(rawType).toLowerCase()];
  if (!type) {
    const what = STRETCH_UNSUPPORTED[String(rawType)];
    const why = what ? `${what} (StretchType ${rawType}) is not supported` : `StretchType ${JSON.stringify(rawType)} is unknown`;
    throw invalid(`${why}; supported: ${SUPPORTED_STRETCHES}`);
  }
  const outputMin = optionalNumber(args, "min", "Min");
  const outputMax = optionalNumber(args, "max", "Max");
  const lo = outputMin ?? 0;
  const hi = outputMax ?? 255;
  if (!(Number.isInteger(lo) && Number.isInteger(hi) && lo >= 0 && hi <= 255 && lo < hi)) {
    throw invalid(`Min and Max are the output range and must be integers with 0 <= Min < Max <= 255 (got Min ${lo}, Max ${hi})`);
  }
  const dra = optionalBoolean(args, "dra", "DRA");
  const useGamma = optionalBoolean(args, "usegamma", "UseGamma");
  const gamma = parseGamma(args.get("gamma"));
  const statistics = parseStatistics(args.get("statistics"));
  const histogram = parseHistograms(args.get("histograms"));
  const common = {
    ...(outputMin !== undefined ? { outputMin } : {}),
    ...(outputMax !== undefined ? { outputMax } : {}),
    ...(dra !== undefined ? { dra } : {}),
    // Gamma applies unless UseGamma says false (clients that send Gamma mean it).
    ...(gamma !== undefined && useGamma !== false ? { gamma } : {}),
    ...(statistics ? { statistics } : {}),
    ...(histogram ? { histogram } : {}),
  };
  if (type === "standardDeviation") {
    const k = optionalNumber(args, "numberofstandarddeviations", "NumberOfStandardDeviations");
    if (k !== undefined && !(k > 0)) throw invalid(`NumberOfStandardDeviations must be greater than 0 (got ${k})`);
    return { type, ...common, ...(k !== undefined ? { numberOfStandardDeviations: k } : {}) };
  }
  if (type === "percentClip") {
    const minPercent = optionalNumber(args, "minpercent", "MinPercent");
    const maxPercent = optionalNumber(args, "maxpercent", "MaxPercent");
    for (const [name, p] of [
      ["MinPercent", minPercent],
      ["MaxPercent", maxPercent],
    ] as const) {
      if (p !== undefined && !(p >= 0 && p < 100)) throw invalid(`${name} must be at least 0 and below 100 (got ${p})`);
    }
    const [low, high] = [minPercent ?? DEFAULT_MIN_PERCENT, maxPercent ?? DEFAULT_MAX_PERCENT];
    if (low + high >= 100) throw invalid(`MinPercent + MaxPercent must be below 100 (got ${low} + ${high}, defaults included)`);
    return { type, ...common, ...(minPercent !== undefined ? { minPercent } : {}), ...(maxPercent !== undefined ? { maxPercent } : {}) };
  }
  if (type === "sigmoid") {
    const level = optionalNumber(args, "sigmoidstrengthlevel", "SigmoidStrengthLevel");
    if (level !== undefined && !(Number.isInteger(level) && level >= 1 && level <= 6))
      throw invalid(`SigmoidStrengthLevel must be an integer from 1 to 6 (got ${level})`);
    return { type, ...common, ...(level !== undefined ? { sigmoidStrengthLevel: level } : {}) };
  }
  return { type, ...common };
}

function optionalNumber(args: Map<string, unknown>, key: string, name: string): number | undefined {
  const v = args.get(key);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isFinite(v)) throw invalid(`${name} must be a finite number, not ${JSON.stringify(v)}`);
  return v;
}

function optionalBoolean(args: Map<string, unknown>, key: string, name: string): boolean | undefined {
  const v = args.get(key);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "boolean") throw invalid(`${name} must be true or false, not ${JSON.stringify(v)}`);
  return v;
}

/** ArcGIS gives one gamma per band; a band is rendered at a time, so the first applies. */
function parseGamma(v: unknown): number | undefined {
  if (v === undefined || v === null || (Array.isArray(v) && v.length === 0)) return undefined;
  const g = Array.isArray(v) ? v[0] : v;
  if (typeof g !== "number" || !(g > 0) || !Number.isFinite(g))
    throw invalid(`Gamma must be a positive number or a list of them, not ${JSON.stringify(v)}`);
  return g;
}

/** [[min, max, mean, stddev], ...] (one per band; the first applies), or one flat quadruple. */
function parseStatistics(v: unknown): StretchStatistics | undefined {
  if (v === undefined || v === null || (Array.isArray(v) && v.length === 0)) return undefined;
  const q = Array.isArray(v) && Array.isArray(v[0]) ? v[0] : v;
  if (!Array.isArray(q) || q.length < 4 || !q.slice(0, 4).every((x) => typeof x === "number" && Number.isFinite(x))) {
    throw invalid(`Statistics must be [[min, max, mean, standardDeviation]] with finite numbers, not ${JSON.stringify(v)}`);
  }
  const [min, max, mean, stddev] = q as number[];
  if (!(min <= max) || !(stddev >= 0))
    throw invalid(`Statistics [${min}, ${max}, ${mean}, ${stddev}] need min <= max and a standard deviation >= 0`);
  return { min, max, mean, stddev };
}

/** [{min, max, counts, size?}, ...] as an image service's histograms give them (one per band; the first applies). */
function parseHistograms(v: unknown): BinnedHistogram | undefined {
  if (v === undefined || v === null || (Array.isArray(v) && v.length === 0)) return undefined;
  const h = (Array.isArray(v) ? v[0] : v) as Record<string, unknown> | null;
  const counts = h?.counts;
  const ok =
    typeof h === "object" &&
    h !== null &&
    typeof h.min === "number" &&
    typeof h.max === "number" &&
    h.min <= h.max &&
    Array.isArray(counts) &&
    counts.length > 0 &&
    counts.every((c) => typeof c === "number" && c >= 0 && Number.isFinite(c)) &&
    (h.size === undefined || h.size === counts.length);
  if (!ok)
    throw invalid(`Histograms must be [{min, max, counts: [non-negative numbers], size?}] with min <= max, not ${JSON.stringify(v)}`);
  return { min: h.min as number, max: h.max as number, counts: counts as number[] };
}

/** The colours a Colormap (or a Stretch's ColorRamp) names, or undefined when it names none. */
function parseColors(args: Map<string, unknown>): Colors | undefined {
  const entries = args.get("colormap");
  if (entries !== undefined && entries !== null) {
    if (!Array.isArray(entries))
      throw invalid(`Colormap must be a list of [value, red, green, blue] entries, not ${JSON.stringify(entries)}`);
    try {
      return { type: "lookup", lookup: colormapLookup(entries as ColormapEntry[]) };
    } catch (e) {
      throw invalid(`Colormap: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  for (const [key, name] of [
    ["colormapname", "ColormapName"],
    ["colorramp", "ColorRamp"],
    ["colorrampname", "ColorrampName"],
  ] as const) {
    const v = args.get(key);
    if (v === undefined || v === null) continue;
    if (typeof v === "string") return rampByName(v, name);
    if (key === "colorramp" && typeof v === "object" && !Array.isArray(v)) {
      try {
        const ramp = parseColorRamp(v, "ColorRamp");
        return { type: "ramp", name: "custom", lut: rampTable(ramp) };
      } catch (e) {
        throw invalid(e instanceof Error ? e.message : String(e));
      }
    }
    throw invalid(`${name} must be ${key === "colorramp" ? "colour-ramp JSON or " : ""}a ramp name, not ${JSON.stringify(v)}`);
  }
  return undefined;
}

function rampByName(name: string, key: string): Colors {
  const lut = namedRampTable(name);
  if (lut) return { type: "ramp", name, lut };
  throw invalid(`${key}: unknown colour ramp "${name}"; use ${RAMP_NAME_HINT}`);
}

/* ---------------------------------------------------------------------------------- */
/* Palettes                                                                            */
/* ---------------------------------------------------------------------------------- */

/** RGBA palette (alpha 255) from a 256-entry RGB ramp. */
function rampPalette(lut: Uint8Array): Uint8Array {
  const pal = new Uint8Array(1024);
  for (let i = 0; i < 256; i++) {
    pal[i * 4] = lut[i * 3];
    pal[i * 4 + 1] = lut[i * 3 + 1];
    pal[i * 4 + 2] = lut[i * 3 + 2];
    pal[i * 4 + 3] = 255;
  }
  return pal;
}

/** RGBA palette over the stretched indices 0..255 from explicit entries; unlisted indices are transparent. */
function lookupPalette(lookup: ColormapLookup): Uint8Array {
  const pal = new Uint8Array(1024);
  for (let i = 0; i < 256; i++) {
    const c = lookup.colorOf(i);
    if (c < 0) continue;
    pal.set([c >> 16, (c >> 8) & 255, c & 255, 255], i * 4);
  }
  return pal;
}
