/**
 * xarray's values of two slices of samples/sst_climatology_4deg.nc (the service the test
 * server publishes as Hosted/sst_climatology_4deg), saved by
 * scripts/goldens/make_export_goldens.py: rows north first, null where the file has no value.
 */
import { readFile } from "node:fs/promises";

export const SST_SERVICE = "/rest/services/Hosted/sst_climatology_4deg/ImageServer";

export interface GoldenSlice {
  index: number;
  rows: number;
  cols: number;
  values: (number | null)[];
}

/** The golden slices (indices 0 and 6). */
export async function sstGoldenSlices(): Promise<GoldenSlice[]> {
  const text = await readFile(new URL("../golden/export/sst_climatology_slices.json", import.meta.url), "utf8");
  return (JSON.parse(text) as { slices: GoldenSlice[] }).slices;
}
