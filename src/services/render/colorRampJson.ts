/**
 * ArcGIS colour-ramp JSON (the REST API's and the Maps SDK's `colorRamp`): an algorithmic ramp
 * `{type: "algorithmic", fromColor: [r, g, b, a?], toColor, algorithm}` interpolated in the
 * colour space its algorithm names (esriHSVAlgorithm: HSV, hue the short way round;
 * esriCIELabAlgorithm: CIE Lab, straight; esriLabLChAlgorithm: LCh, hue the short way round),
 * or a multipart ramp `{type: "multipart", colorRamps: [algorithmic, ...]}` whose parts share
 * the ramp equally, in order. A ramp becomes a 256-entry table: entry i is the colour at
 * t = i / 255. Alpha is accepted and ignored (rendered colours are opaque, as in ArcGIS).
 */
import { type Rgb01, hsvToRgb, labToLch, labToRgb, lchToLab, rgbToHsv, rgbToLab } from "./colorSpaces.js";

export type RampAlgorithm = "esriHSVAlgorithm" | "esriCIELabAlgorithm" | "esriLabLChAlgorithm";

export interface AlgorithmicRamp {
  readonly type: "algorithmic";
  readonly algorithm: RampAlgorithm;
  readonly fromColor: readonly [number, number, number];
  readonly toColor: readonly [number, number, number];
}
export interface MultipartRamp {
  readonly type: "multipart";
  readonly colorRamps: readonly AlgorithmicRamp[];
}
export type ColorRampSpec = AlgorithmicRamp | MultipartRamp;

const ALGORITHMS: readonly RampAlgorithm[] = ["esriHSVAlgorithm", "esriCIELabAlgorithm", "esriLabLChAlgorithm"];
/** The algorithm when a ramp names none (the Maps SDK's default). */
const DEFAULT_ALGORITHM: RampAlgorithm = "esriCIELabAlgorithm";

/**
 * Check colour-ramp JSON and return it typed.
 * @throws RangeError saying what is wrong (the caller names the parameter).
 * @example
 * parseColorRamp({ type: "algorithmic", fromColor: [0, 0, 255, 255], toColor: [255, 0, 0, 255], algorithm: "esriHSVAlgorithm" });
 */
export function parseColorRamp(json: unknown, what = "the colour ramp"): ColorRampSpec {
  const obj = record(json, what);
  const type = obj.type;
  if (type === "multipart") {
    const parts = obj.colorRamps;
    if (!Array.isArray(parts) || parts.length === 0) throw new RangeError(`${what}: a multipart ramp needs a non-empty colorRamps list`);
    return { type, colorRamps: parts.map((p, i) => algorithmic(record(p, `${what}: colorRamps[${i}]`), `${what}: colorRamps[${i}]`)) };
  }
  if (type === "algorithmic") return algorithmic(obj, what);
  throw new RangeError(`${what}: type must be "algorithmic" or "multipart", not ${JSON.stringify(type)}`);
}

/**
 * The 256-entry RGB table (768 bytes) of a ramp.
 * @example
 * rampTable({ type: "algorithmic", algorithm: "esriCIELabAlgorithm", fromColor: [0, 0, 0], toColor: [255, 255, 255] }); // black -> white
 */
export function rampTable(ramp: ColorRampSpec): Uint8Array {
  const parts = ramp.type === "multipart" ? ramp.colorRamps : [ramp];
  return weightedRampTable(
    parts,
    parts.map(() => 1),
    256,
  );
}

/**
 * A table of `size` RGB colours (entry i the colour at t = i / (size - 1)) through parts that
 * take shares of the ramp in proportion to `weights`: part p covers t in [W_p, W_p+1) / W for
 * W_p the weights before it and W their sum (the last part also takes t = 1).
 * @throws RangeError when the weights are not one positive number per part.
 * @example
 * weightedRampTable([blackToRed, redToWhite], [1, 3], 256); // red a quarter of the way along
 */
export function weightedRampTable(parts: readonly AlgorithmicRamp[], weights: readonly number[], size: number): Uint8Array {
  if (weights.length !== parts.length || !weights.every((w) => w > 0)) throw new RangeError("a ramp needs one positive weight per part");
  const interpolators = parts.map(interpolator);
  const starts = weights.map((_, p) => weights.slice(0, p).reduce((a, w) => a + w, 0));
  const total = starts[parts.length - 1] + weights[parts.length - 1];
  const lut = new Uint8Array(size * 3);
  let p = 0;
  for (let i = 0; i < size; i++) {
    const at = size > 1 ? (i / (size - 1)) * total : 0;
    while (p < parts.length - 1 && at >= starts[p + 1]) p++;
    const c = interpolators[p](Math.min(1, (at - starts[p]) / weights[p]));
    lut[i * 3] = Math.round(c.r);
    lut[i * 3 + 1] = Math.round(c.g);
    lut[i * 3 + 2] = Math.round(c.b);
  }
  return lut;
}

function record(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new RangeError(`${what} must be a JSON object`);
  return v as Record<string, unknown>;
}

function algorithmic(obj: Record<string, unknown>, what: string): AlgorithmicRamp {
  if (obj.type !== undefined && obj.type !== "algorithmic") {
    throw new RangeError(`${what}: type must be "algorithmic", not ${JSON.stringify(obj.type)}`);
  }
  const algorithm = obj.algorithm ?? DEFAULT_ALGORITHM;
  if (!ALGORITHMS.includes(algorithm as RampAlgorithm)) {
    throw new RangeError(`${what}: algorithm must be one of ${ALGORITHMS.join(", ")}, not ${JSON.stringify(algorithm)}`);
  }
  return {
    type: "algorithmic",
    algorithm: algorithm as RampAlgorithm,
    fromColor: color(obj.fromColor, `${what}: fromColor`),
    toColor: color(obj.toColor, `${what}: toColor`),
  };
}

function color(v: unknown, what: string): [number, number, number] {
  const ok = Array.isArray(v) && (v.length === 3 || v.length === 4) && v.every((x) => Number.isFinite(x) && x >= 0 && x <= 255);
  if (!ok) throw new RangeError(`${what} must be [r, g, b] or [r, g, b, a] with channels 0..255, not ${JSON.stringify(v)}`);
  return [v[0], v[1], v[2]];
}

/** Chroma below which a Lab colour is a grey, whose hue means nothing. */
const GREY_CHROMA = 1e-3;

/** The colour at u in [0, 1] between a ramp's ends, in its colour space. */
function interpolator(ramp: AlgorithmicRamp): (u: number) => Rgb01 {
  const [fr, fg, fb] = ramp.fromColor;
  const [tr, tg, tb] = ramp.toColor;
  const from = { r: fr, g: fg, b: fb };
  const to = { r: tr, g: tg, b: tb };
  if (ramp.algorithm === "esriCIELabAlgorithm") {
    const a = rgbToLab(from);
    const b = rgbToLab(to);
    return (u) => labToRgb({ l: lerp(a.l, b.l, u), a: lerp(a.a, b.a, u), b: lerp(a.b, b.b, u) });
  }
  if (ramp.algorithm === "esriHSVAlgorithm") {
    const a = rgbToHsv(from);
    const b = rgbToHsv(to);
    // A grey end takes the other end's hue, so the ramp does not swing through unrelated hues.
    const [h0, h1] = a.s === 0 && b.s !== 0 ? [b.h, b.h] : b.s === 0 && a.s !== 0 ? [a.h, a.h] : [a.h, b.h];
    const dh = shortestTurn(h1 - h0, 360);
    return (u) => hsvToRgb({ h: h0 + dh * u, s: lerp(a.s, b.s, u), v: lerp(a.v, b.v, u) });
  }
  const a = labToLch(rgbToLab(from));
  const b = labToLch(rgbToLab(to));
  const [h0, h1] = a.c < GREY_CHROMA && b.c >= GREY_CHROMA ? [b.h, b.h] : b.c < GREY_CHROMA && a.c >= GREY_CHROMA ? [a.h, a.h] : [a.h, b.h];
  const dh = shortestTurn(h1 - h0, 2 * Math.PI);
  return (u) => labToRgb(lchToLab({ l: lerp(a.l, b.l, u), c: lerp(a.c, b.c, u), h: h0 + dh * u }));
}

/** A hue difference turned the short way round a circle of `full` (half a turn stays as is). */
function shortestTurn(d: number, full: number): number {
  if (d > full / 2) return d - full;
  if (d < -full / 2) return d + full;
  return d;
}

function lerp(a: number, b: number, u: number): number {
  return a + (b - a) * u;
}
