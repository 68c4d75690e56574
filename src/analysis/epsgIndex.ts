/**
 * EPSG coordinate systems from the epsg-index package (the EPSG registry as GDAL/PROJ export
 * it: name, WKT1, proj4 string; one small JSON file per code). A code's file is read the first
 * time it is asked for and kept, so the 8000-odd codes cost nothing at start.
 * Usable for the warp: 2D geographic and projected systems that proj4 can run on its own, i.e.
 * without a datum-shift grid file (a few hundred name one, e.g. 27700, British National Grid).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

/** What Strata takes from an entry. */
export interface EpsgSystem {
  readonly code: number;
  readonly name: string;
  /** GDAL's WKT1, with the code as its outermost AUTHORITY. */
  readonly wkt: string;
  readonly proj4: string;
}

/** A usable system, or why the code cannot be used. */
export type EpsgLookup = { readonly ok: true; readonly system: EpsgSystem } | { readonly ok: false; readonly reason: string };

interface Entry {
  readonly kind?: string;
  readonly name?: string;
  readonly wkt?: string;
  readonly proj4?: string;
}

const USABLE_KINDS: ReadonlySet<string> = new Set(["CRS-GEOGCRS", "CRS-PROJCRS"]);
const require = createRequire(import.meta.url);
/** Found codes only (at most the registry's size); a miss is cheap to repeat and not kept. */
const found = new Map<number, EpsgLookup>();

/**
 * @example
 * const utm = epsgSystem(32633); // { ok: true, system: { name: "WGS 84 / UTM zone 33N", proj4: "+proj=utm +zone=33 ...", ... } }
 * epsgSystem(27700); // { ok: false, reason: "it needs the datum grid OSTN15_NTv2_OSGBtoETRS.gsb, which proj4 does not have here" }
 */
export function epsgSystem(code: number): EpsgLookup {
  if (!(Number.isInteger(code) && code > 0)) return { ok: false, reason: "it is not an EPSG code" };
  const known = found.get(code);
  if (known) return known;
  const entry = readEntry(code);
  if (!entry) return { ok: false, reason: "it is not an EPSG coordinate system" };
  const lookup = usable(code, entry);
  found.set(code, lookup);
  return lookup;
}

function readEntry(code: number): Entry | undefined {
  let path: string;
  try {
    path = require.resolve(`epsg-index/s/${code}.json`);
  } catch {
    return undefined;
  }
  return JSON.parse(readFileSync(path, "utf8")) as Entry;
}

function usable(code: number, entry: Entry): EpsgLookup {
  const name = entry.name ?? `EPSG:${code}`;
  if (!entry.kind || !USABLE_KINDS.has(entry.kind))
    return { ok: false, reason: `${name} is not a 2D geographic or projected coordinate system` };
  if (!entry.proj4 || !entry.wkt) return { ok: false, reason: `${name} has no proj4 definition` };
  // "@name" grids are optional (proj4 goes on without them); a bare name is required.
  const grid = entry.proj4.match(/\+nadgrids=([^\s@][^\s,]*)/);
  if (grid) return { ok: false, reason: `${name} needs the datum grid ${grid[1]}, which proj4 does not have here` };
  return { ok: true, system: { code, name, wkt: entry.wkt, proj4: entry.proj4.replace(/\s*\+type=crs\b/, "") } };
}
