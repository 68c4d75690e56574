/**
 * The tiling scheme of a hosted image service (SPEC §11), which makes it a tiled image
 * service for the Maps SDK's ImageryTileLayer: the root resource announces it (`tileInfo`
 * and the cache's other keys) and `tile/{level}/{row}/{col}` answers each tile as LERC2.
 *
 * The scheme is in the service's own coordinate system, whatever it is (WGS84, Web Mercator
 * or any other the service is in): ImageryTileLayer reads the tiles in the raster's own
 * coordinates and reprojects on the client, and a raster's pixels must line up with the
 * finest level. So the origin is the upper-left corner of the service's extent (as served:
 * a global geographic grid from -180, servedExtent.ts), tiles are 256 × 256, the finest
 * level's cell is the grid's (the smaller side of a non-square cell), and each level up
 * doubles it until the whole extent fits in one tile (level 0). At the finest level a tile's
 * pixels are the grid's own cells; coarser levels take the nearest cell (or an overview's),
 * so every value served is a stored one. Pixels beyond the extent have no value (masked).
 */
import type { Envelope } from "../analysis/warp.js";
import { InvalidInputError, NotFoundError } from "../cube/errors.js";
import type { Grid, Window } from "../cube/types.js";
import { gridEnvelope, spatialReference } from "./info.js";
import { servedGrid } from "./servedExtent.js";
import { gridCrs } from "./spatial.js";

const TILE_SIZE = 256;
/** Screen resolution ArcGIS computes scales with, and its inches a metre (not 1 / 0.0254). */
const DPI = 96;
const INCHES_PER_METRE = 39.37;
/** Metres in a degree at the equator, as ArcGIS computes a geographic scheme's scales. */
const METRES_PER_DEGREE = 111319.49079327357;

export interface TilingScheme {
  /** Upper-left corner of tile (0, 0) at every level. */
  readonly originX: number;
  readonly originY: number;
  /** Cell size by level, level 0 (coarsest) first. */
  readonly resolutions: readonly number[];
  /** The service's extent as served: where tiles hold values. */
  readonly envelope: Envelope;
  /** Metres a map unit, for scales. */
  readonly metresPerUnit: number;
}

/**
 * The scheme of a service's grid, or undefined when its coordinate system is not one Strata
 * can draw in (then the service is not tiled).
 * @example
 * tilingScheme(grid).resolutions; // [4] for a 90 × 45 grid of 4° cells: one level, one tile
 */
export function tilingScheme(grid: Grid): TilingScheme | undefined {
  let geographic: boolean;
  try {
    geographic = gridCrs(grid).geographic;
  } catch {
    return undefined;
  }
  const envelope = gridEnvelope(servedGrid(grid));
  const finest = Math.min(Math.abs(grid.transform[1]), Math.abs(grid.transform[5]));
  const cells = Math.max(envelope.xmax - envelope.xmin, envelope.ymax - envelope.ymin) / finest;
  const levels = Math.max(0, Math.ceil(Math.log2(cells / TILE_SIZE) - 1e-9));
  return {
    originX: envelope.xmin,
    originY: envelope.ymax,
    resolutions: Array.from({ length: levels + 1 }, (_, level) => finest * 2 ** (levels - level)),
    envelope,
    metresPerUnit: geographic ? METRES_PER_DEGREE : 1,
  };
}

/**
 * The keys a tiled image service's root resource has (ArcGIS's names), or none when the
 * service cannot be tiled. `cacheType: "Raster"` tells the SDK the tiles hold data, not
 * pictures or elevation; minScale and maxScale 0 leave the layer visible at every scale.
 */
export function tilingInfo(grid: Grid): Record<string, unknown> {
  const scheme = tilingScheme(grid);
  if (!scheme) return {};
  return {
    singleFusedMapCache: true,
    cacheType: "Raster",
    tileInfo: {
      rows: TILE_SIZE,
      cols: TILE_SIZE,
      dpi: DPI,
      format: "LERC",
      compressionQuality: 0,
      origin: { x: scheme.originX, y: scheme.originY },
      spatialReference: spatialReference(grid),
      lods: scheme.resolutions.map((resolution, level) => ({
        level,
        resolution,
        scale: resolution * scheme.metresPerUnit * DPI * INCHES_PER_METRE,
      })),
    },
    storageInfo: { storageFormat: "esriMapCacheStorageModeCompactV2", packetSize: 128 },
    minScale: 0,
    maxScale: 0,
    minLOD: 0,
    maxLOD: scheme.resolutions.length - 1,
  };
}

/** What a tile is drawn from: an exportImage request of its extent, and which of its pixels hold values. */
export interface TileRequest {
  /** exportImage parameters: the tile's bbox at its level's cells in the service's coordinate system, as LERC. */
  readonly params: Record<string, string>;
  /** The tile's pixels inside the service's extent; the rest have no value. */
  readonly validWindow: Window;
}

/** Slice selection and LERC options a tile request passes on to the export it is drawn by. */
const PASSED_ON = ["sliceId", "time", "mosaicRule", "compressionTolerance", "lercVersion"] as const;

/**
 * The export that draws tile (level, row, col): a 404 beyond the scheme (a level it has
 * not, a row or column past the extent), as ArcGIS answers a tile its cache has not.
 * @example
 * tileRequest(grid, "0", "0", "0", { sliceId: "6" }).params.bbox; // "-181,-935,843,89" for the SST sample
 */
export function tileRequest(grid: Grid, level: string, row: string, col: string, params: Record<string, string>): TileRequest {
  const scheme = tilingScheme(grid);
  if (!scheme) throw new NotFoundError("This service is not tiled: its coordinate system is not one Strata can draw in.");
  const [l, r, c] = [tileIndex(level, "level"), tileIndex(row, "row"), tileIndex(col, "col")];
  const resolution = scheme.resolutions[l];
  const span = TILE_SIZE * resolution;
  const { envelope: e } = scheme;
  const cols = Math.ceil((e.xmax - e.xmin) / span - 1e-9);
  const rows = Math.ceil((e.ymax - e.ymin) / span - 1e-9);
  if (resolution === undefined || r >= rows || c >= cols) {
    throw new NotFoundError(
      `Tile not found: levels run 0..${scheme.resolutions.length - 1}` +
        (resolution === undefined ? "." : `, and level ${l} has rows 0..${rows - 1} and columns 0..${cols - 1}.`),
    );
  }
  const xmin = scheme.originX + c * span;
  const ymax = scheme.originY - r * span;
  // Pixels whose centres lie inside the extent (the origin is its upper-left corner).
  const inside = (extent: number) => Math.max(0, Math.min(TILE_SIZE, Math.ceil(extent / resolution - 0.5 - 1e-9)));
  const sr = JSON.stringify(spatialReference(grid));
  const passed = Object.fromEntries(PASSED_ON.flatMap((k) => (params[k]?.trim() ? [[k, params[k]]] : [])));
  return {
    params: {
      ...passed,
      bbox: [xmin, ymax - span, xmin + span, ymax].join(","),
      bboxSR: sr,
      imageSR: sr,
      size: `${TILE_SIZE},${TILE_SIZE}`,
      format: "lerc",
      interpolation: "RSP_NearestNeighbor",
    },
    validWindow: { x: 0, y: 0, width: inside(e.xmax - xmin), height: inside(ymax - e.ymin) },
  };
}

function tileIndex(text: string, parameter: string): number {
  if (!/^\d{1,9}$/.test(text))
    throw new InvalidInputError(`the tile's ${parameter} must be a whole number ≥ 0; got "${text}"`, { parameter });
  return Number(text);
}
