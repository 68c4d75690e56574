/**
 * A trend raster's bands read as people use them (SPEC §8): the slope per year and per decade,
 * and the fitted line at the input's slices, evaluated from the band values the way the
 * server fitted them. x is days since 1970-01-01 for StdTime (epoch ms / 86 400 000), else
 * the dimension value itself.
 */
import type { TrendAttribute } from "../api/types.js";
import { isTime } from "../format.js";

const MS_PER_DAY = 86_400_000;
/** SPEC §8: a year is 365.25 days, so a decade is 3652.5. */
export const DAYS_PER_YEAR = 365.25;
export const DAYS_PER_DECADE = 3652.5;

/** The band holding the trend's slope per unit of x (Sen's slope for the Kendall tests). */
export function slopeBandOf(trend: TrendAttribute): string | undefined {
  const bands = trend.bands ?? [];
  return bands.includes("Slope") ? "Slope" : bands.includes("Sens_Slope") ? "Sens_Slope" : undefined;
}

const xOf = (dimension: string, value: number): number => (isTime(dimension) ? value / MS_PER_DAY : value);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * The fitted value at each of `xs` (dimension values) of a pixel whose bands are `values`
 * (in the trend's band order), or undefined when the model or its bands cannot give a line.
 * Kendall rasters hold a slope only: their line is Sen's, through the median of y − slope·x
 * of the input's valid values `ys` (Sen 1968), as trend tools draw it.
 */
export function fittedLine(
  trend: TrendAttribute,
  values: readonly (number | null)[],
  xs: readonly number[],
  ys: readonly (number | null)[],
): number[] | undefined {
  const bands = trend.bands ?? [];
  const band = (name: string) => {
    const v = values[bands.indexOf(name)];
    return typeof v === "number" && Number.isFinite(v) ? v : undefined;
  };
  const x = xs.map((v) => xOf(trend.dimension, v));
  const slope = band("Slope");
  const intercept = band("Intercept");
  switch (trend.model) {
    case "LINEAR":
      if (slope === undefined || intercept === undefined) return undefined;
      return x.map((t) => intercept + slope * t);
    case "HARMONIC": {
      const L = trend.cycleLengthDays;
      if (slope === undefined || intercept === undefined || !L || !trend.harmonics) return undefined;
      const terms: [number, number][] = [];
      for (let i = 1; i <= trend.harmonics; i++) {
        const [s, c] = [band(`Harmonic_sin${i}`), band(`Harmonic_cos${i}`)];
        if (s === undefined || c === undefined) return undefined;
        terms.push([s, c]);
      }
      return x.map((t) => {
        const w = (2 * Math.PI * t) / L;
        return terms.reduce((y, [s, c], k) => y + s * Math.sin((k + 1) * w) + c * Math.cos((k + 1) * w), intercept + slope * t);
      });
    }
    case "POLYNOMIAL": {
      const order = trend.order ?? 0;
      const b = Array.from({ length: order + 1 }, (_, k) => band(`Polynomial_${k}`));
      if (!order || b.some((v) => v === undefined)) return undefined;
      // Horner's rule from the highest power down.
      return x.map((t) => b.reduceRight<number>((y, bk) => y * t + bk!, 0));
    }
    case "MANN-KENDALL":
    case "SEASONAL-KENDALL": {
      const sens = band("Sens_Slope");
      const residuals = ys.flatMap((y, i) => (y === null ? [] : [y - (sens ?? 0) * x[i]]));
      if (sens === undefined || !residuals.length) return undefined;
      const b0 = median(residuals);
      return x.map((t) => b0 + sens * t);
    }
    default:
      return undefined;
  }
}
