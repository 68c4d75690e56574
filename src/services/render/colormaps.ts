/**
 * Colour ramps as 256-entry RGB lookup tables, and ArcGIS value -> colour colormaps.
 *
 * The ramps reproduce matplotlib's (3.x) within one unit per channel at every one of the 256
 * entries: the perceptually uniform maps (viridis, magma, inferno, plasma, cividis) are stored as
 * control points at chosen indices of matplotlib's 256-colour tables, picked greedily until
 * linear interpolation between them is within 1/255 of the full table; the diverging ColorBrewer
 * maps (RdBu, BrBG, Spectral) are the 11 evenly spaced colours matplotlib itself interpolates,
 * so they are exact.
 *
 * Orientation follows matplotlib: index 0 is the ramp's first colour. RdBu runs red (low) ->
 * white -> blue (high); any name with the suffix `_r` is the reversed ramp, so `RdBu_r` runs
 * blue (negative) -> white -> red (positive), the usual choice for anomalies.
 */

/** An RGB colour, each channel 0..255. */
export type Rgb = readonly [number, number, number];

/** A colour for an exact pixel value: [value, r, g, b] as in the ArcGIS Colormap raster function. */
export type ColormapEntry = readonly [number, number, number, number];

/**
 * Control points "index:rrggbb" at indices 0..255 of matplotlib's tables, interpolated linearly.
 * Greedy knots, not evenly spaced: the tables bend unevenly (cividis has a kink near 20).
 */
const KNOTS: Readonly<Record<string, string>> = {
  viridis:
    "0:440154 8:470d60 23:482173 29:482979 50:414287 81:32648e 120:23898e 132:1f948c 139:1e9b8a 151:21a685 157:25ac82 " +
    "166:2fb47c 177:40bd72 190:5ac864 203:77d153 233:c5e021 239:d5e21a 242:dde318 246:e7e419 251:f4e61e 255:fde725",
  magma:
    "0:000004 2:010106 12:06051a 25:140e36 32:1d1147 42:2c115f 48:36106b 58:471078 66:54137d 74:601880 93:7e2482 " +
    "120:aa337d 129:b83779 149:d8456c 156:e24d66 170:f1605d 179:f7705c 192:fc8961 204:fe9f6d 216:feb67c 235:fed89a 255:fcfdbf",
  inferno:
    "0:000004 2:010106 6:02020e 15:0a0722 26:180c3c 40:2f0a5b 48:3d0965 54:470b6a 64:57106e 88:7d1e6d 101:922568 " +
    "110:a02a63 132:c13a50 144:d24644 155:df5337 166:ea632a 175:f1711f 189:f8890c 193:fa9008 199:fb9b06 202:fca108 " +
    "209:fcae12 222:f9c72f 232:f5db4c 241:f1ec6d 248:f3f68a 255:fcffa4",
  plasma:
    "0:0d0887 7:20068f 23:3e049c 37:5502a4 45:6100a7 62:7b02a8 68:8405a7 78:920fa3 92:a51f99 123:c7427c 148:dd5e66 " +
    "161:e76e5b 188:f79044 215:feb72d 229:fccd25 235:fbd724 251:f2f227 255:f0f921",
  cividis:
    "0:00224e 20:003070 23:013271 28:123570 33:1c396f 44:2d416d 53:38476c 86:585e6d 134:828079 151:928d78 175:aaa073 " +
    "191:bbad6d 219:d9c55c 234:e9d34e 239:efd748 246:f7de3e 251:fde334 255:fee838",
  gray: "0:000000 255:ffffff",
  // ColorBrewer's 11-class schemes, evenly spaced (every 25.5 indices), as matplotlib builds them.
  RdBu: "67001f b2182b d6604d f4a582 fddbc7 f7f7f7 d1e5f0 92c5de 4393c3 2166ac 053061",
  BrBG: "543005 8c510a bf812d dfc27d f6e8c3 f5f5f5 c7eae5 80cdc1 35978f 01665e 003c30",
  Spectral: "9e0142 d53e4f f46d43 fdae61 fee08b ffffbf e6f598 abdda4 66c2a5 3288bd 5e4fa2",
};

/** The ramp names, in matplotlib's spelling (lookup ignores case; `<name>_r` reverses any of them). */
export const RAMP_NAMES: readonly string[] = Object.keys(KNOTS);

const DIVERGING: ReadonlySet<string> = new Set(["RdBu", "BrBG", "Spectral"]);

const BY_LOWER: ReadonlyMap<string, string> = new Map(RAMP_NAMES.map((n) => [n.toLowerCase(), n]));

const cache = new Map<string, Uint8Array>();

/** Canonical base name and reversal flag of a ramp name, or undefined when it is not a ramp. */
function resolveName(name: string): { base: string; reversed: boolean } | undefined {
  const lower = name.toLowerCase();
  const direct = BY_LOWER.get(lower);
  if (direct) return { base: direct, reversed: false };
  const base = lower.endsWith("_r") ? BY_LOWER.get(lower.slice(0, -2)) : undefined;
  return base ? { base, reversed: true } : undefined;
}

/**
 * The 256-entry RGB table (768 bytes, r g b per entry) of a named ramp; a fresh copy each call.
 * @throws RangeError naming the unknown ramp and the known ones.
 * @example
 * const lut = colorRamp("viridis"); // lut[0..2] = 0x44 0x01 0x54, lut[765..767] = 0xfd 0xe7 0x25
 * colorRamp("RdBu_r"); // blue for low values, red for high ones
 */
export function colorRamp(name: string): Uint8Array {
  const resolved = resolveName(name);
  if (!resolved) {
    throw new RangeError(`unknown colour ramp "${name}"; known ramps: ${RAMP_NAMES.join(", ")} (append _r to reverse one)`);
  }
  const key = resolved.base + (resolved.reversed ? "_r" : "");
  let lut = cache.get(key);
  if (!lut) {
    lut = buildRamp(KNOTS[resolved.base]);
    if (resolved.reversed) lut = reverseRamp(lut);
    cache.set(key, lut);
  }
  return lut.slice();
}

/**
 * True for diverging ramps (a light centre between two hues: RdBu, BrBG, Spectral and their
 * `_r` forms), which suit values signed around zero; false for sequential and unknown names.
 * @example
 * isDivergingRamp("RdBu_r"); // true
 * isDivergingRamp("viridis"); // false
 */
export function isDivergingRamp(name: string): boolean {
  const resolved = resolveName(name);
  return resolved !== undefined && DIVERGING.has(resolved.base);
}

/**
 * A 256-entry RGB table interpolated linearly through evenly spaced colours (the first at
 * index 0, the last at 255). One colour gives a constant ramp.
 * @throws RangeError when the list is empty or a channel is not an integer 0..255.
 * @example
 * rampFromColors([[0, 0, 255], [255, 255, 255], [255, 0, 0]]); // blue -> white -> red
 */
export function rampFromColors(colors: readonly Rgb[]): Uint8Array {
  if (colors.length === 0) throw new RangeError("a colour ramp needs at least one colour");
  colors.forEach((c, i) => checkRgb(c, `colour ${i}`));
  if (colors.length === 1) colors = [colors[0], colors[0]];
  const step = 255 / (colors.length - 1);
  return interpolate(colors.map((c, i) => [i * step, c] as const));
}

/** Value -> colour lookup built by `colormapLookup`. */
export interface ColormapLookup {
  /** The colour of a pixel value packed as 0xRRGGBB, or -1 when the colormap does not list the value. */
  colorOf(value: number): number;
}

/** Dense tables up to this many entries (4 MiB); sparser colormaps use a Map. */
const DENSE_LIMIT = 1 << 20;

/**
 * Lookup for an ArcGIS `Colormap` of explicit [value, r, g, b] entries: integer pixel values
 * listed get exactly their colour; every other value (unlisted, fractional, NaN) gets none and
 * renders transparent. A value listed twice keeps its last colour.
 * @throws RangeError when an entry is not [integer, r, g, b] with channels 0..255.
 * @example
 * const cm = colormapLookup([[1, 255, 0, 0], [2, 0, 255, 0]]);
 * cm.colorOf(1); // 0xff0000
 * cm.colorOf(3); // -1
 */
export function colormapLookup(entries: readonly ColormapEntry[]): ColormapLookup {
  if (entries.length === 0) throw new RangeError("a colormap needs at least one [value, r, g, b] entry");
  let lo = Infinity;
  let hi = -Infinity;
  entries.forEach((e, i) => {
    if (!Array.isArray(e) || e.length !== 4) throw new RangeError(`colormap entry ${i} is not [value, r, g, b]`);
    if (!Number.isSafeInteger(e[0])) throw new RangeError(`colormap entry ${i}: the value ${e[0]} is not an integer`);
    checkRgb([e[1], e[2], e[3]], `colormap entry ${i}`);
    lo = Math.min(lo, e[0]);
    hi = Math.max(hi, e[0]);
  });
  const pack = (e: ColormapEntry): number => (e[1] << 16) | (e[2] << 8) | e[3];
  if (hi - lo < DENSE_LIMIT) {
    const table = new Int32Array(hi - lo + 1).fill(-1);
    for (const e of entries) table[e[0] - lo] = pack(e);
    return {
      colorOf(v) {
        const k = v - lo;
        // Fractions, NaN and out-of-range values fail the integer/range test and have no colour.
        return k >= 0 && k <= hi - lo && k === Math.floor(k) ? table[k] : -1;
      },
    };
  }
  const map = new Map<number, number>(entries.map((e) => [e[0], pack(e)]));
  return { colorOf: (v) => map.get(v) ?? -1 };
}

function checkRgb(c: Rgb, what: string): void {
  if (!Array.isArray(c) || c.length !== 3 || !c.every((x) => Number.isInteger(x) && x >= 0 && x <= 255)) {
    throw new RangeError(`${what} is not [r, g, b] with integer channels 0..255: ${JSON.stringify(c)}`);
  }
}

/** Table from "i:rrggbb ..." knots, or from bare "rrggbb ..." colours spread evenly over 0..255. */
function buildRamp(spec: string): Uint8Array {
  const tokens = spec.split(" ");
  const knots = tokens.map((t, i): readonly [number, Rgb] => {
    const [pos, hex] = t.includes(":") ? [Number(t.split(":")[0]), t.split(":")[1]] : [(i * 255) / (tokens.length - 1), t];
    const n = parseInt(hex, 16);
    return [pos, [n >> 16, (n >> 8) & 255, n & 255]];
  });
  return interpolate(knots);
}

/** Linear interpolation through knots at ascending positions 0..255, rounded to bytes. */
function interpolate(knots: readonly (readonly [number, Rgb])[]): Uint8Array {
  const lut = new Uint8Array(256 * 3);
  let k = 0;
  for (let i = 0; i < 256; i++) {
    while (k < knots.length - 2 && i > knots[k + 1][0]) k++;
    const [p0, c0] = knots[k];
    const [p1, c1] = knots[k + 1];
    const t = Math.min(1, Math.max(0, (i - p0) / (p1 - p0)));
    for (let ch = 0; ch < 3; ch++) lut[i * 3 + ch] = Math.round(c0[ch] + (c1[ch] - c0[ch]) * t);
  }
  return lut;
}

function reverseRamp(lut: Uint8Array): Uint8Array {
  const out = new Uint8Array(lut.length);
  for (let i = 0; i < 256; i++) out.set(lut.subarray(i * 3, i * 3 + 3), (255 - i) * 3);
  return out;
}
