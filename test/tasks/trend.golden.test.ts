/**
 * GenerateTrendRaster end to end against numpy/scipy: each case of
 * test/golden/analysis/trend.json is parsed by the task's real parser (a fake environment
 * resolves `{"uri": "<repository-relative file>"}`), written with writeTrend to a Zarr store,
 * and the store is opened again with openCube. Band names, the `strata:trend` metadata
 * (xCenter/xScale) and every sample must match: float64 bands to 1e-6 relative (with a 1e-12
 * absolute floor for the rounding noise of zero coefficients), P values to 1e-6 absolute,
 * null = nodata.
 *
 * Goldens, from the repository root:
 *   bash scripts/fixtures.sh && /tmp/v/bin/python scripts/goldens/make_analysis_goldens.py
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";

import { readTrendMetadata } from "../../src/analysis/trendModel.js";
import type { Cube } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import { chooseTrendWalk } from "../../src/tasks/trendStreaming.js";
import { type TrendOptions, trendTask, writeTrend } from "../../src/tasks/trend.js";
import type { InputLocation, ParseEnv } from "../../src/tasks/types.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const GOLDEN = join(ROOT, "test/golden/analysis/trend.json");

interface TrendCase {
  name: string;
  file: string;
  params: Record<string, string>;
  bands: string[];
  xCenter?: number;
  xScale?: number;
  samples: { variable: string; index: Record<string, number>; row: number; col: number; values: (number | null)[] | null }[];
}

const env: ParseEnv = {
  resolveInput: async (d) => {
    const uri = (d as { uri: string }).uri;
    return { location: { path: isAbsolute(uri) ? uri : join(ROOT, uri) }, warnings: [] };
  },
  resolveOutput: async () => ({ kind: "create", serviceName: "x", itemProperties: {} }),
  openCube: (location: InputLocation) => openCube(location.path!),
};

/** Relative 1e-6 with a 1e-12 absolute floor; P values (bands named *P_Value / *PValue) 1e-6 absolute. */
function close(band: string, got: number, want: number): boolean {
  if (/p_?value/i.test(band)) return Math.abs(got - want) <= 1e-6;
  return Math.abs(got - want) <= 1e-6 * Math.abs(want) + 1e-12;
}

const CASES: TrendCase[] = existsSync(GOLDEN) ? (JSON.parse(readFileSync(GOLDEN, "utf8")) as TrendCase[]) : [];

describe("GenerateTrendRaster against numpy/scipy (golden cases written to Zarr)", { skip: CASES.length === 0 && "no goldens" }, () => {
  let dir = "";
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "strata-trend-golden-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("covers every model", () => {
    const types = new Set(CASES.map((c) => c.params.trendLineType ?? "LINEAR"));
    for (const t of ["LINEAR", "POLYNOMIAL", "HARMONIC", "MANN-KENDALL", "SEASONAL-KENDALL"]) assert.ok(types.has(t), t);
  });

  for (const c of CASES) it(c.name, () => checkCase(dir, c));
});

/** Stored as daily products ship (scripts/goldens/make_chunked_copies.py): the same values, so the same goldens. */
const CHUNKED = { "test/golden/analysis/daily.nc": "test/golden/analysis/daily_nc4.nc" } as Record<string, string>;

describe("GenerateTrendRaster against numpy/scipy, inputs stored a time step per chunk (the streamed walk for least squares, the transposed one for Kendall)", () => {
  let dir = "";
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "strata-trend-golden-stream-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  // The NetCDF-4 copy of daily.nc, and the navy winds (a record a month), with a tile budget
  // small enough that the tile walk would take many tiles.
  const cases = CASES.filter((c) => c.file in CHUNKED || c.file.includes("monthly_navy_winds"));
  it("covers every least-squares model", () => {
    for (const t of ["LINEAR", "POLYNOMIAL", "HARMONIC"])
      assert.ok(
        cases.some((c) => (c.params.trendLineType ?? "LINEAR") === t),
        t,
      );
  });
  const walk = (plan: TrendOptions) => (plan.model.type.includes("KENDALL") ? "transpose" : "stream");
  for (const c of cases) it(c.name, () => checkCase(dir, { ...c, file: CHUNKED[c.file] ?? c.file }, 36 * 1024, walk));
});

describe("GenerateTrendRaster against numpy/scipy, daily.nc stored 100 days × 2 rows × 5 columns a chunk (tiles of whole chunks through time, every model)", () => {
  let dir = "";
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "strata-trend-golden-time-chunks-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  // The same small budget: the tile walk takes two tiles of one chunk's 2 × 5 cells each.
  const cases = CASES.filter((c) => c.file === "test/golden/analysis/daily.nc");
  it("covers every model", () => {
    assert.equal(
      new Set(cases.map((c) => c.params.trendLineType ?? "LINEAR")).size,
      new Set(CASES.map((c) => c.params.trendLineType ?? "LINEAR")).size,
    );
  });
  for (const c of cases) it(c.name, () => checkCase(dir, { ...c, file: "test/golden/analysis/daily_t100.nc" }, 36 * 1024, () => "tile"));
});

async function checkCase(dir: string, c: TrendCase, tileBudgetBytes?: number, walkKind?: (plan: TrendOptions) => string): Promise<void> {
  const { options } = await trendTask.parse(
    { inputMultidimensionalRaster: JSON.stringify({ uri: c.file }), outputName: '{"serviceProperties":{"name":"x"}}', ...c.params },
    env,
  );
  // As it travels to the worker; a small tile budget makes the tile walk take many tiles.
  const plan = { ...(JSON.parse(JSON.stringify(options)) as TrendOptions), ...(tileBudgetBytes ? { tileBudgetBytes } : {}) };
  const path = join(dir, `${c.name}.zarr`);
  const source = await openCube(join(ROOT, c.file));
  try {
    if (walkKind) {
      const walk = chooseTrendWalk(source, plan, 1);
      assert.equal(walk.kind, walkKind(plan), walk.note);
    }
    await writeTrend(source, plan, path);
  } finally {
    await source.close();
  }
  const out: Cube = await openCube(path);
  try {
    for (const s of c.samples) {
      const v = out.variables.find((x) => x.name === s.variable);
      assert.ok(v, `variable ${s.variable}`);
      const meta = readTrendMetadata(v.attributes);
      assert.ok(typeof meta !== "string", `strata:trend: ${String(meta)}`);
      assert.deepEqual(meta.bands, c.bands, "bands");
      if (c.xCenter !== undefined) assert.ok(Math.abs(meta.xCenter - c.xCenter) <= 1e-9 * Math.abs(c.xCenter) + 1e-9, "xCenter");
      if (c.xScale !== undefined) assert.ok(Math.abs(meta.xScale - c.xScale) <= 1e-9 * c.xScale, "xScale");
      assert.deepEqual(
        v.dimensions.map((d) => d.name),
        [...Object.keys(s.index), "Band"],
        "dimensions",
      );
      assert.deepEqual(
        v.dimensions[v.dimensions.length - 1].values,
        c.bands.map((_, i) => i + 1),
        "Band values",
      );
      assert.equal(v.pixelType, "F64");
      const slab = await v.read({
        dims: v.dimensions.map((d) =>
          d.name === "Band" ? ([0, c.bands.length] as const) : ([s.index[d.name], s.index[d.name] + 1] as const),
        ),
        window: { x: s.col, y: s.row, width: 1, height: 1 },
      });
      const where = `${s.variable} ${JSON.stringify(s.index)} row ${s.row} col ${s.col}`;
      const got = Array.from(slab.data);
      if (s.values === null) {
        assert.ok(
          got.every((x) => Number.isNaN(x)),
          `${where}: expected nodata, got ${got.join(", ")}`,
        );
        continue;
      }
      s.values.forEach((want, b) => {
        const band = c.bands[b];
        if (want === null) assert.ok(Number.isNaN(got[b]), `${where} ${band}: expected nodata, got ${got[b]}`);
        else assert.ok(close(band, got[b], want), `${where} ${band}: got ${got[b]}, numpy ${want}`);
      });
    }
  } finally {
    await out.close();
  }
}
