/**
 * A job's messages say what of its input raster is not read: a dimension counted 0..n-1 for
 * want of a coordinate, a variable or coordinate left out (parse warnings become the job's
 * warning messages).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { openLocation } from "../../src/io/open.js";
import { anomalyTask } from "../../src/tasks/anomaly.js";
import { subsetTask } from "../../src/tasks/subset.js";
import type { ParseEnv } from "../../src/tasks/types.js";
import { writeNetcdf3 } from "../helpers/netcdf3Writer.js";

let dir = "";
let path = "";
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-notes-"));
  path = join(dir, "member.nc");
  await writeNetcdf3(path, {
    dims: [
      { name: "time", size: 3 },
      { name: "member", size: 2 },
      { name: "lat", size: 1 },
      { name: "lon", size: 2 },
    ],
    vars: [
      { name: "time", dims: ["time"], type: "double", attrs: { units: "days since 2000-01-01" }, data: [0, 1, 2] },
      { name: "lat", dims: ["lat"], type: "double", attrs: { units: "degrees_north" }, data: [0] },
      { name: "lon", dims: ["lon"], type: "double", attrs: { units: "degrees_east" }, data: [0, 1] },
      { name: "t", dims: ["time", "member", "lat", "lon"], type: "float", data: Array.from({ length: 12 }, (_, i) => i) },
    ],
  });
});
after(() => rm(dir, { recursive: true, force: true }));

const env: ParseEnv = {
  resolveInput: async () => ({ location: { path }, warnings: [] }),
  resolveOutput: async () => ({ kind: "create", serviceName: "x", itemProperties: {} }),
  openCube: (location) => openLocation(location),
};
const common = { inputMultidimensionalRaster: '{"uri":"member.nc"}', outputName: '{"serviceProperties":{"name":"x"}}' };
const NOTE =
  /^inputMultidimensionalRaster: dimension member has no coordinate variable Strata can read; its values are the indices 0\.\.1$/;

describe("job messages name what of the input is not read", () => {
  it("GenerateMultidimensionalAnomaly", async () => {
    const { warnings } = await anomalyTask.parse({ ...common, method: "DIFFERENCE_FROM_MEAN", calculationInterval: "ALL" }, env);
    assert.ok(
      warnings.some((w) => NOTE.test(w)),
      JSON.stringify(warnings),
    );
  });
  it("SubsetMultidimensionalRaster", async () => {
    const { warnings } = await subsetTask.parse(common, env);
    assert.ok(
      warnings.some((w) => NOTE.test(w)),
      JSON.stringify(warnings),
    );
  });
});
