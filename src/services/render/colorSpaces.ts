/**
 * Colour-space conversions for ArcGIS's algorithmic colour ramps: sRGB (channels 0..255) to and
 * from HSV (esriHSVAlgorithm), CIE L*a*b* (esriCIELabAlgorithm) and its polar form L*C*h
 * (esriLabLChAlgorithm). Lab is relative to the D65 white of sRGB (X 95.047, Y 100, Z 108.883)
 * with sRGB's transfer curve and primaries (IEC 61966-2-1), as scikit-image and the ArcGIS Maps
 * SDK compute it. Results back in sRGB are clamped to the gamut, not rounded.
 */

/** sRGB channels, each 0..255 (fractions allowed). */
export interface Rgb01 {
  readonly r: number;
  readonly g: number;
  readonly b: number;
}
/** Hue in degrees [0, 360), saturation and value 0..1. */
export interface Hsv {
  readonly h: number;
  readonly s: number;
  readonly v: number;
}
export interface Lab {
  readonly l: number;
  readonly a: number;
  readonly b: number;
}
/** Lightness, chroma, and hue in radians [0, 2π). */
export interface Lch {
  readonly l: number;
  readonly c: number;
  readonly h: number;
}

/**
 * sRGB -> HSV.
 * @example
 * rgbToHsv({ r: 255, g: 128, b: 0 }); // { h: 30.12, s: 1, v: 1 }
 */
export function rgbToHsv({ r, g, b }: Rgb01): Hsv {
  const max = Math.max(r, g, b);
  const delta = max - Math.min(r, g, b);
  let h = 0;
  if (delta > 0) {
    if (max === r) h = ((g - b) / delta) % 6;
    else if (max === g) h = (b - r) / delta + 2;
    else h = (r - g) / delta + 4;
    h *= 60;
    if (h < 0) h += 360;
  }
  return { h, s: max === 0 ? 0 : delta / max, v: max / 255 };
}

/**
 * HSV -> sRGB (hue taken modulo 360).
 * @example
 * hsvToRgb({ h: 240, s: 1, v: 1 }); // { r: 0, g: 0, b: 255 }
 */
export function hsvToRgb({ h, s, v }: Hsv): Rgb01 {
  const hh = (((h % 360) + 360) % 360) / 60;
  const c = v * s;
  const x = c * (1 - Math.abs((hh % 2) - 1));
  const m = v - c;
  const sector = Math.floor(hh);
  const [r, g, b] =
    sector === 0
      ? [c, x, 0]
      : sector === 1
        ? [x, c, 0]
        : sector === 2
          ? [0, c, x]
          : sector === 3
            ? [0, x, c]
            : sector === 4
              ? [x, 0, c]
              : [c, 0, x];
  return { r: clamp255((r + m) * 255), g: clamp255((g + m) * 255), b: clamp255((b + m) * 255) };
}

/** D65 white point (CIE 1931 2°), scaled to Y = 100. */
const WHITE = [95.047, 100, 108.883] as const;
/** Linear sRGB -> XYZ (IEC 61966-2-1). */
const RGB_TO_XYZ = [
  [0.412453, 0.35758, 0.180423],
  [0.212671, 0.71516, 0.072169],
  [0.019334, 0.119193, 0.950227],
] as const;
/** The inverse of RGB_TO_XYZ. */
const XYZ_TO_RGB = invert3(RGB_TO_XYZ);
const EPSILON = (6 / 29) ** 3;

/**
 * sRGB -> CIE L*a*b* (D65).
 * @example
 * rgbToLab({ r: 255, g: 255, b: 255 }); // { l: 100, a: ~0, b: ~0 }
 */
export function rgbToLab({ r, g, b }: Rgb01): Lab {
  const lin = [r, g, b].map((c) => {
    const x = c / 255;
    return x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
  });
  const [fx, fy, fz] = RGB_TO_XYZ.map((row, i) => {
    const t = (100 * (row[0] * lin[0] + row[1] * lin[1] + row[2] * lin[2])) / WHITE[i];
    return t > EPSILON ? Math.cbrt(t) : t / (3 * (6 / 29) ** 2) + 4 / 29;
  });
  return { l: 116 * fy - 16, a: 500 * (fx - fy), b: 200 * (fy - fz) };
}

/**
 * CIE L*a*b* (D65) -> sRGB, clamped to the gamut.
 * @example
 * labToRgb({ l: 53.24, a: 80.09, b: 67.2 }); // ~{ r: 255, g: 0, b: 0 }
 */
export function labToRgb({ l, a, b }: Lab): Rgb01 {
  const fy = (l + 16) / 116;
  const xyz = [fy + a / 500, fy, fy - b / 200].map((f, i) => (WHITE[i] / 100) * (f > 6 / 29 ? f ** 3 : 3 * (6 / 29) ** 2 * (f - 4 / 29)));
  const [r, g, bl] = XYZ_TO_RGB.map((row) => {
    const c = Math.min(1, Math.max(0, row[0] * xyz[0] + row[1] * xyz[1] + row[2] * xyz[2]));
    return 255 * (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);
  });
  return { r: clamp255(r), g: clamp255(g), b: clamp255(bl) };
}

/**
 * Lab -> LCh (hue in radians, 0..2π).
 * @example
 * labToLch({ l: 50, a: 0, b: 10 }); // { l: 50, c: 10, h: π/2 }
 */
export function labToLch({ l, a, b }: Lab): Lch {
  const h = Math.atan2(b, a);
  return { l, c: Math.hypot(a, b), h: h < 0 ? h + 2 * Math.PI : h };
}

/**
 * LCh -> Lab.
 * @example
 * lchToLab({ l: 50, c: 10, h: Math.PI / 2 }); // { l: 50, a: ~0, b: 10 }
 */
export function lchToLab({ l, c, h }: Lch): Lab {
  return { l, a: c * Math.cos(h), b: c * Math.sin(h) };
}

function clamp255(x: number): number {
  return x < 0 ? 0 : x > 255 ? 255 : x;
}

type Matrix3 = readonly (readonly [number, number, number])[];

function invert3(m: Matrix3): Matrix3 {
  const [[a, b, c], [d, e, f], [g, h, i]] = m;
  const A = e * i - f * h;
  const B = -(d * i - f * g);
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  return [
    [A / det, -(b * i - c * h) / det, (b * f - c * e) / det],
    [B / det, (a * i - c * g) / det, -(a * f - c * d) / det],
    [C / det, -(a * h - b * g) / det, (a * e - b * d) / det],
  ];
}
