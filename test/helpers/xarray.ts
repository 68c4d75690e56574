/**
 * What xarray (Debian's python3-xarray in /usr/bin/python3) sees in a NetCDF file, through
 * test/io/xarray_check_netcdf.py: the independent reference for NetCDF outputs and downloads.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const PYTHON = "/usr/bin/python3";
const CHECK = fileURLToPath(new URL("../io/xarray_check_netcdf.py", import.meta.url));

export interface XVariable {
  dims: string[];
  shape: number[];
  dtype: string;
  attrs: Record<string, unknown>;
  encoding: Record<string, unknown>;
  values: (number | string | null)[];
}
export interface XView {
  attrs: Record<string, unknown>;
  dims: Record<string, number>;
  coords: Record<string, XVariable>;
  variables: Record<string, XVariable>;
}

/** What xarray.open_dataset sees in `file` (optionally isel'd: { TIME: [0, 5] }); fails loudly without xarray. */
export function xarrayView(file: string, keep: Record<string, number[]> = {}): XView {
  const args = [CHECK, file, ...Object.entries(keep).map(([d, list]) => `${d}=${list.join(",")}`)];
  const r = spawnSync(PYTHON, args, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (r.error || r.status === 3) {
    assert.fail(
      `${PYTHON} cannot run xarray (${r.error?.message ?? r.stderr.trim()}): run \`bash scripts/system-packages.sh\` ` +
        "(npm test's pretest does) to install python3-xarray and python3-netcdf4",
    );
  }
  assert.equal(r.status, 0, `xarray could not open ${file}:\n${r.stderr}`);
  return JSON.parse(r.stdout) as XView;
}
