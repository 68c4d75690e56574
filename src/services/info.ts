/**
 * The JSON an ArcGIS client reads from a hosted image service: the root resource and
 * `multidimensionalInfo`, built from the dataset's cube and its stored statistics. A trend
 * raster is multiband (bands.ts): its bands are counted, named and summarised band by band,
 * and its `Band` dimension is not listed.
 */
import type { Envelope } from "../analysis/warp.js";
import type { Statistics } from "../analysis/statistics.js";
import type { Cube, Grid, PixelType } from "../cube/types.js";
import { bandNamesOf, bandStatistics, sliceDimensions } from "./bands.js";
import { servedGrid } from "./servedExtent.js";
import { hasStoredHistograms } from "./storedStatistics.js";
import { dimensionStep, serviceTimeInfo } from "./timeInfo.js";

/** Largest exportImage a service accepts (ArcGIS Image Server's defaults). */
export const MAX_IMAGE_WIDTH = 4100;
export const MAX_IMAGE_HEIGHT = 15000;
/** What Strata answers (docs/api.md lists each capability's operations; a test calls them all). */
export const CAPABILITIES = "Image,Multidimensional";

export type StatisticsByVariable = Readonly<Record<string, Statistics | undefined | null>>;

/** The ArcGIS spatialReference object of a grid. */
export function spatialReference(grid: Grid): Record<string, unknown> {
  const epsg = grid.crs.epsg;
  if (epsg === 3857 || epsg === 102100) return { wkid: 102100, latestWkid: 3857 };
  if (epsg !== undefined) return { wkid: epsg, latestWkid: epsg };
  return grid.crs.wkt ? { wkt: grid.crs.wkt } : {};
}

/** The outer edges of an unrotated grid's cells. */
export function gridEnvelope(grid: Grid): Envelope {
  const [t0, t1, , t3, , t5] = grid.transform;
  const xs = [t0, t0 + t1 * grid.width];
  const ys = [t3, t3 + t5 * grid.height];
  return { xmin: Math.min(...xs), ymin: Math.min(...ys), xmax: Math.max(...xs), ymax: Math.max(...ys) };
}

/** A grid's envelope as ArcGIS writes extents, with its spatial reference. */
export function gridExtent(grid: Grid): Record<string, unknown> {
  return { ...gridEnvelope(grid), spatialReference: spatialReference(grid) };
}

const ESRI_PIXEL_TYPE: Record<PixelType, string> = {
  U8: "U8",
  S8: "S8",
  U16: "U16",
  S16: "S16",
  U32: "U32",
  S32: "S32",
  F32: "F32",
  F64: "F64",
};

/**
 * The ImageServer root resource, shown as its first variable (the default a client draws):
 * its bands (one, or a trend raster's, named) and each band's statistics.
 * @example
 * imageServiceInfo("sst_subset", cube, stats, { description: "..." })
 */
export function imageServiceInfo(
  name: string,
  cube: Cube,
  stats: StatisticsByVariable,
  meta: { description?: string; copyrightText?: string; capabilities?: string } = {},
): Record<string, unknown> {
  const grid = cube.grid;
  const first = cube.variables[0];
  const perBand = first ? bandStatistics(stats, first) : [];
  const names = first ? bandNamesOf(first) : [];
  const all = perBand.every((s) => s !== undefined);
  const extent = gridExtent(servedGrid(grid));
  const nodata = first?.nodata;
  return {
    currentVersion: 11.3,
    serviceDescription: meta.description ?? "",
    name,
    description: meta.description ?? "",
    serviceDataType: "esriImageServiceDataTypeScientific",
    extent,
    initialExtent: extent,
    fullExtent: extent,
    spatialReference: spatialReference(grid),
    pixelSizeX: Math.abs(grid.transform[1]),
    pixelSizeY: Math.abs(grid.transform[5]),
    bandCount: Math.max(1, names.length),
    pixelType: first ? ESRI_PIXEL_TYPE[first.pixelType] : "F32",
    minPixelSize: 0,
    maxPixelSize: 0,
    copyrightText: meta.copyrightText ?? "",
    minValues: all ? perBand.map((s) => s!.min) : [],
    maxValues: all ? perBand.map((s) => s!.max) : [],
    meanValues: all ? perBand.map((s) => s!.mean) : [],
    stdvValues: all ? perBand.map((s) => s!.stddev) : [],
    hasMultidimensions: cube.variables.some((v) => v.dimensions.length > 0),
    timeInfo: serviceTimeInfo(cube),
    capabilities: meta.capabilities ?? CAPABILITIES,
    defaultResamplingMethod: "Bilinear",
    maxImageWidth: MAX_IMAGE_WIDTH,
    maxImageHeight: MAX_IMAGE_HEIGHT,
    maxDownloadSizeLimit: 0,
    allowRasterFunction: true,
    hasHistograms: hasStoredHistograms(cube, stats),
    hasColormap: false,
    hasRasterAttributeTable: false,
    noDataValue: nodata === undefined || Number.isNaN(nodata) ? null : nodata,
    noDataValues: nodata === undefined || Number.isNaN(nodata) ? [] : names.map(() => nodata),
    bandNames: names,
    variableNames: cube.variables.map((v) => v.name),
  };
}

/** Which dimensions list their values: ArcGIS's returnDimensionValues. */
export type DimensionValues = "always" | "never" | "ifIrregular";

/**
 * The `multidimensionalInfo` resource; StdTime values in epoch milliseconds. A trend
 * raster's variables list their slice dimensions only (no `Band`) and one statistics entry
 * per band, as ArcGIS lists a multiband variable's.
 */
export function multidimensionalInfo(
  cube: Cube,
  stats: StatisticsByVariable,
  returnDimensionValues: DimensionValues = "always",
): Record<string, unknown> {
  return {
    multidimensionalInfo: {
      variables: cube.variables.map((v) => {
        const perBand = bandStatistics(stats, v);
        return {
          name: v.name,
          description: v.description,
          unit: v.unit,
          dimensions: sliceDimensions(v).map((d) => ({
            name: d.name,
            description: d.description,
            unit: d.unit,
            extent: [Math.min(...d.values), Math.max(...d.values)],
            hasRegularIntervals: d.interval !== undefined,
            ...dimensionStep(d),
            hasRanges: false,
            ...(returnDimensionValues === "always" || (returnDimensionValues === "ifIrregular" && d.interval === undefined)
              ? { values: [...d.values] }
              : {}),
          })),
          statistics: perBand.every((s) => s !== undefined)
            ? perBand.map((s) => ({ min: s!.min, max: s!.max, mean: s!.mean, standardDeviation: s!.stddev, count: s!.count }))
            : [],
          ...strataAttributes(v.attributes),
        };
      }),
    },
  };
}

/**
 * What Strata's analyses recorded about a variable (`strata:anomaly`, `strata:trend` with the
 * fitted dimension and band names, `strata:prediction`), for clients that render or predict
 * from it; not part of ArcGIS's multidimensionalInfo, so under `attributes`.
 */
function strataAttributes(attributes: Readonly<Record<string, unknown>>): { attributes?: Record<string, unknown> } {
  const kept = Object.fromEntries(
    Object.entries(attributes).filter(([k]) => ["strata:anomaly", "strata:trend", "strata:prediction"].includes(k)),
  );
  return Object.keys(kept).length ? { attributes: kept } : {};
}
