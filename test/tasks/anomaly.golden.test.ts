/**
 * GenerateMultidimensionalAnomaly end to end against numpy: each case of
 * test/golden/analysis/anomaly.json is parsed by the task's real parser (an environment that
 * resolves `{"uri": <repository path>}` and the file share `/fileShares/golden/<file>` =
 * test/golden/analysis/<file>), written with writeAnomaly to a Zarr store, and the store is
 * opened again: every sample must equal numpy's value to 1e-5 relative (null = nodata), and
 * the output must keep exactly the input's slices.
 *
 * Goldens, from the repository root:
 *   bash scripts/fixtures.sh && /tmp/v/bin/python scripts/goldens/make_analysis_goldens.py
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";

import type { Cube, Slab } from "../../src/cube/types.js";
import { openCube, openLocation } from "../../src/io/open.js";
import { type AnomalyOptions, anomalyTask, writeAnomaly } from "../../src/tasks/anomaly.js";
import { chooseAnomalyWalk } from "../../src/tasks/anomalyStreaming.js";
import type { ParseEnv } from "../../src/tasks/types.js";
import { ANOMALY_CASES, type AnomalyCase, assertSamples } from "../helpers/anomalyGolden.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SHARE = "/fileShares/golden/";
const GOLDEN = fileURLToPath(new URL("../golden/analysis/", import.meta.url));

const env: ParseEnv = {
  resolveInput: async (descriptor) => {
    const uri = (descriptor as { uri: string }).uri;
    return { location: { path: uri.startsWith(SHARE) ? GOLDEN + uri.slice(SHARE.length) : ROOT + uri }, warnings: [] };
  },
  resolveOutput: async () => ({ kind: "create", serviceName: "x", itemProperties: {} }),
  openCube: (location) => openLocation(location),
};

describe("Anomaly output against numpy (golden cases written to Zarr)", () => {
  let dir = "";
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "strata-anomaly-golden-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("the goldens cover every method and calculation interval", () => {
    const methods = new Set(ANOMALY_CASES.map((c) => c.params.method));
    const intervals = new Set(ANOMALY_CASES.map((c) => c.params.calculationInterval));
    assert.equal(methods.size, 7);
    assert.equal(intervals.size, 7);
  });

  for (const c of ANOMALY_CASES) it(c.name, () => checkCase(dir, c));
});

/** Stored as daily products ship (scripts/goldens/make_chunked_copies.py): the same values, so the same goldens. */
const CHUNKED_COPIES: Record<string, string> = {
  "test/golden/analysis/daily.nc": "test/golden/analysis/daily_nc4.nc",
  "test/golden/analysis/hourly.nc": "test/golden/analysis/hourly_nc4.nc",
};

describe("Anomaly output against numpy, NetCDF-4 one time step per chunk (the streaming walk for the mean methods, the transposed one for medians)", () => {
  let dir = "";
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "strata-anomaly-golden-nc4-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const cases = ANOMALY_CASES.filter((c) => c.file in CHUNKED_COPIES);
  it("covers every method and calculation interval", () => {
    assert.equal(new Set(cases.map((c) => c.params.method)).size, 7);
    assert.equal(new Set(cases.map((c) => c.params.calculationInterval)).size, 7);
  });
  // A tile budget for 2×2 pixels through time makes the tile walk take many tiles, so the
  // planner streams when the method allows (and transposes for medians), and the accumulators' budget (which scales with
  // it) makes bands of rows where groups are many.
  for (const c of cases) {
    const slices = c.file.includes("daily") ? 1096 : 283;
    it(c.name, () => checkCase(dir, { ...c, file: CHUNKED_COPIES[c.file] }, slices * 8 * 4 * 1.5, streamsOrTransposes));
  }
  // Output stored raw (context.compression NONE): the mean methods keep the input's values in
  // the output's chunks between passes and read them back instead of decoding the input again.
  for (const c of cases.filter((c) => !c.params.method?.includes("MEDIAN") && c.params.calculationInterval !== "EXTERNAL_RASTER")) {
    const slices = c.file.includes("daily") ? 1096 : 283;
    it(`${c.name}, output stored raw`, () =>
      checkCase(
        dir,
        { ...c, name: `${c.name}_raw`, file: CHUNKED_COPIES[c.file], params: { ...c.params, context: '{"compression":"NONE"}' } },
        slices * 8 * 4 * 1.5,
        streamsOrTransposes,
      ));
  }
});

/** Medians need whole series: transposed; every other method streams. */
const streamsOrTransposes = (plan: AnomalyOptions) => (plan.method.includes("MEDIAN") ? "transpose" : "stream");

describe("Anomaly output against numpy, daily.nc stored 100 days × 2 rows × 5 columns a chunk (tiles of whole chunks through time)", () => {
  let dir = "";
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "strata-anomaly-golden-t100-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  // The same small budget: the tile walk takes two tiles of one chunk's 2 × 5 cells each,
  // which read each chunk once, whatever the method.
  const cases = ANOMALY_CASES.filter((c) => c.file === "test/golden/analysis/daily.nc");
  it("covers every method and calculation interval", () => {
    assert.equal(new Set(cases.map((c) => c.params.method)).size, 7);
    assert.equal(new Set(cases.map((c) => c.params.calculationInterval)).size, 7);
  });
  for (const c of cases)
    it(c.name, () => checkCase(dir, { ...c, file: "test/golden/analysis/daily_t100.nc" }, 1096 * 8 * 4 * 1.5, () => "tile"));
});

async function checkCase(
  dir: string,
  c: AnomalyCase,
  tileBudgetBytes?: number,
  walkKind?: (plan: AnomalyOptions) => string,
): Promise<void> {
  const { options } = await anomalyTask.parse(
    { inputMultidimensionalRaster: JSON.stringify({ uri: c.file }), outputName: '{"serviceProperties":{"name":"x"}}', ...c.params },
    env,
  );
  // Through JSON, as the options travel to the worker.
  const plan = { ...(JSON.parse(JSON.stringify(options)) as AnomalyOptions), ...(tileBudgetBytes ? { tileBudgetBytes } : {}) };
  const path = join(dir, `${c.name}.zarr`);
  const source = await openLocation(plan.input);
  const reference = plan.reference ? await openLocation(plan.reference) : undefined;
  try {
    if (walkKind) {
      const walk = chooseAnomalyWalk(source, plan);
      assert.equal(walk.kind, walkKind(plan), walk.note);
      // The input's values kept between the passes, whatever the output's codec, where the
      // output has their type: float inputs (an anomaly of integers is a float).
      const floats = plan.variables.every((name) => ["F32", "F64"].includes(source.variables.find((v) => v.name === name)!.pixelType));
      const keeps = plan.calculationInterval !== "EXTERNAL_RASTER" && floats;
      if (walk.kind === "stream") assert.equal(walk.plan.keepInput ?? false, keeps, walk.note);
    }
    await writeAnomaly(source, plan, path, { reference });
    assert.equal(existsSync(join(path, "strata-kept")), false, "nothing kept is left in the store");
  } finally {
    await source.close();
    await reference?.close();
  }

  const out: Cube = await openCube(path);
  const input = await openLocation(plan.input);
  try {
    assert.deepEqual(
      out.variables.map((v) => v.name),
      plan.variables,
    );
    for (const v of out.variables) {
      const s = input.variables.find((x) => x.name === v.name)!;
      assert.deepEqual(
        v.dimensions.map((d) => [d.name, d.values]),
        s.dimensions.map((d) => [d.name, d.values]),
        `${v.name}: the input's slices`,
      );
    }
    // Output chunks hold the whole time axis: read each variable once, then index it.
    const whole = new Map<string, Slab>();
    for (const s of c.samples) {
      const v = out.variables.find((x) => x.name === s.variable)!;
      if (!whole.has(v.name)) whole.set(v.name, await v.read());
      assertSamples(v, whole.get(v.name)!, [s]);
    }
  } finally {
    await out.close();
    await input.close();
  }
}
