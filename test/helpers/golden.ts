/**
 * Golden files made by scripts/goldens/make_io_goldens.py from xarray/netCDF4/cftime, and
 * the hand-written rules that say what Strata must present for what xarray reports.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const REAL = fileURLToPath(new URL("../fixtures/real/", import.meta.url));
export const GOLDEN_IO = fileURLToPath(new URL("../golden/io/", import.meta.url));

/** Every file with io goldens: the four real files and the two tiny ones the script writes. */
export const GOLDEN_FILES: readonly (readonly [stem: string, path: string])[] = [
  ["monthly_navy_winds", `${REAL}monthly_navy_winds.cdf`],
  ["coads_climatology", `${REAL}coads_climatology.cdf`],
  ["ocean_atlas_subset", `${REAL}ocean_atlas_subset.nc`],
  ["nc4uvt", `${REAL}nc4uvt.nc`],
  ["scaled", `${GOLDEN_IO}scaled.nc`],
  ["tiny_360day", `${GOLDEN_IO}tiny_360day.nc`],
];

export interface GoldenVariable {
  name: string;
  dims: string[];
  shape: number[];
  dtype: string;
  units: string | null;
  long_name: string | null;
  fill_value: number | null;
  missing_value: number | null;
  scale_factor: number | null;
}

export interface GoldenInfo {
  file: string;
  variables: GoldenVariable[];
  coords: Record<string, { values: number[]; units: string | null; attrs: Record<string, unknown> }>;
  times: Record<string, { calendar: string; epoch_ms?: number[]; components?: number[][] }>;
  grid_mappings?: Record<string, Record<string, unknown>>;
}

export interface GoldenWindow {
  variable: string;
  index: Record<string, [number, number]>;
  rows: [number, number];
  cols: [number, number];
  shape: number[];
  values: (number | null)[];
}

export function loadInfo(stem: string): GoldenInfo {
  return JSON.parse(readFileSync(`${GOLDEN_IO}${stem}.info.json`, "utf8")) as GoldenInfo;
}

export function loadWindows(stem: string): GoldenWindow[] {
  return JSON.parse(readFileSync(`${GOLDEN_IO}${stem}.windows.json`, "utf8")) as GoldenWindow[];
}

/** The coordinate of a dimension as xarray lists it: the group's own first, then the root's. */
export function coordOf(info: GoldenInfo, variable: string, dim: string) {
  const group = variable.includes("/") ? variable.slice(0, variable.lastIndexOf("/") + 1) : "";
  return info.coords[group + dim] ?? info.coords[dim];
}

/** Strata's name for a non-spatial dimension: StdTime for CF time, StdZ for vertical axes. */
export function expectedDimName(info: GoldenInfo, variable: string, dim: string): string {
  if (info.times[dim]) return "StdTime";
  const c = coordOf(info, variable, dim);
  if (c && (c.attrs.axis === "Z" || c.attrs.positive === "up" || c.attrs.positive === "down")) return "StdZ";
  return dim;
}

/** Strata's values for a non-spatial dimension: epoch ms for time, heights for StdZ. */
export function expectedDimValues(info: GoldenInfo, variable: string, dim: string): number[] {
  const t = info.times[dim];
  if (t?.epoch_ms) return t.epoch_ms;
  if (t?.components) return t.components.map((c) => modelCalendarInstant(c, t.calendar));
  const c = coordOf(info, variable, dim);
  if (!c) return [];
  return c.attrs.positive === "down" ? c.values.map((v) => (v === 0 ? 0 : -v)) : c.values;
}

/**
 * The documented mapping of a model-calendar date to an instant, worked by hand: a date the
 * Gregorian calendar has maps to itself; February's extra days (29, 30 in a 360_day year)
 * squeeze evenly into the last Gregorian day of February.
 */
export function modelCalendarInstant([y, m, d, hh = 0, mm = 0, ss = 0]: number[], calendar: string): number {
  const dayMs = 86_400_000;
  const timeOfDay = ((hh * 60 + mm) * 60 + ss) * 1000;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const lastFeb = leap ? 29 : 28;
  const modelFeb = calendar === "360_day" ? 30 : calendar === "all_leap" || calendar === "366_day" ? 29 : lastFeb;
  if (m === 2 && d >= lastFeb && modelFeb > lastFeb) {
    // Model days lastFeb .. modelFeb share the one real day Feb lastFeb, in order.
    const modelDays = modelFeb - lastFeb + 1;
    return Date.UTC(y, 1, lastFeb) + Math.round(((d - lastFeb) * dayMs + timeOfDay) / modelDays);
  }
  return Date.UTC(y, m - 1, d) + timeOfDay;
}

export const PIXEL_TYPES: Record<string, string> = {
  int8: "S8",
  uint8: "U8",
  int16: "S16",
  uint16: "U16",
  int32: "S32",
  uint32: "U32",
  float32: "F32",
  float64: "F64",
};
