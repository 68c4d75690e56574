/**
 * SubsetMultidimensionalRaster's selection (SPEC §3, §6, §10) against xarray: for every
 * case of test/golden/subset/cases.json the request parameters go through the task's real
 * parser (subsetTask.parse, with a fake environment that resolves the input to a fixture
 * file) and the kept dimension values, variables and extent window are compared with what
 * xarray selects. Then bad inputs: each is an InvalidInputError naming its parameter.
 *
 * Goldens, from the repository root:
 *   bash scripts/fixtures.sh && /tmp/v/bin/python scripts/goldens/make_subset_goldens.py
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { InvalidInputError } from "../../src/cube/errors.js";
import type { Cube, Dimension } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import { applyContext } from "../../src/tasks/context.js";
import { selectSlices } from "../../src/tasks/selection.js";
import { type SubsetOptions, subsetTask } from "../../src/tasks/subset.js";
import type { Parsed } from "../../src/tasks/types.js";
import { CASES, REAL, fixtureEnv, plain } from "../helpers/subsetCases.js";

/** Whether two longitudes name the same meridian (they may differ by whole turns). */
function sameLongitude(a: number, b: number): boolean {
  return Math.abs(((((a - b) % 360) + 540) % 360) - 180) < 1e-9;
}

function parse(file: string, params: Record<string, string>): Promise<Parsed<SubsetOptions>> {
  return subsetTask.parse(
    { inputMultidimensionalRaster: JSON.stringify({ uri: file }), outputName: '{"serviceProperties":{"name":"x"}}', ...params },
    fixtureEnv,
  );
}

describe("Subset selection against xarray (golden cases)", () => {
  const cubes = new Map<string, Cube>();
  before(async () => {
    for (const file of new Set(CASES.map((c) => c.file))) cubes.set(file, await openCube(REAL + file));
  });
  after(async () => {
    for (const cube of cubes.values()) await cube.close();
  });

  it("has enough cases", () => assert.ok(CASES.length >= 12, `${CASES.length} cases`));

  for (const c of CASES) {
    it(c.name, async () => {
      const cube = cubes.get(c.file)!;
      const { options } = await parse(c.file, c.params);
      assert.deepEqual(
        options.variables.map((v) => v.name),
        c.expected.variables,
        "variables",
      );
      for (const planned of options.variables) {
        const v = cube.variables.find((x) => x.name === planned.name)!;
        assert.deepEqual(
          v.dimensions.map((d) => d.name),
          Object.keys(c.expected.dims),
          `${v.name}: dimensions`,
        );
        assert.equal(planned.indices.length, v.dimensions.length);
        v.dimensions.forEach((d, i) => {
          const kept = planned.indices[i].map((k) => d.values[k]);
          assert.deepEqual(plain(kept), plain(c.expected.dims[d.name]), `${v.name} ${d.name}`);
        });
      }
      const w = options.window;
      if (c.expected.grid) {
        const g = c.expected.grid;
        assert.equal(w.width, g.width, "window width");
        assert.equal(w.height, g.height, "window height");
        // The window is of the grid as the context presents it (from the extent's western
        // column, in its longitudes, across the seam): the same ground as xarray's selection.
        const presented = applyContext(cube, options).cube.grid;
        assert.equal(sameLongitude(presented.x[w.x], g.xmin_center), true, `westernmost column centre ${presented.x[w.x]}`);
        assert.equal(presented.y[w.y], g.ymax_center, "northernmost row centre");
      } else {
        assert.deepEqual(w, { x: 0, y: 0, width: cube.grid.width, height: cube.grid.height });
      }
    });
  }
});

describe("Subset selection: calendar stepping", () => {
  const DAY = 86_400_000;
  const daily: Dimension = {
    name: "StdTime",
    sourceName: "time",
    description: "",
    unit: "ISO8601",
    values: Array.from({ length: 365 }, (_, i) => Date.UTC(2023, 0, 1) + i * DAY),
  };

  it("month steps are anchored at the start and clamped to the month end", () => {
    const kept = selectSlices([daily], {
      kind: "BY_ITERATION",
      iteration: { dimension: "StdTime", start: "2023-01-31", end: "2023-01-31", step: 1, unit: "MONTHS" },
    }).get("StdTime")!;
    // The last day of every month of 2023 (stepping window by window would drift to the 28th).
    const lastDays = Array.from({ length: 12 }, (_, m) => Date.UTC(2023, m + 1, 0));
    assert.deepEqual(
      kept.map((i) => daily.values[i]),
      lastDays,
    );
  });

  it("a window of several days repeats every 2 weeks, bounds inclusive", () => {
    const kept = selectSlices([daily], {
      kind: "BY_ITERATION",
      iteration: { dimension: "stdtime", start: "2023-12-01", end: "2023-12-03T00:00:00Z", step: 2, unit: "WEEKS" },
    }).get("StdTime")!;
    const expected = [1, 2, 3, 15, 16, 17, 29, 30, 31].map((d) => Date.UTC(2023, 11, d));
    assert.deepEqual(
      kept.map((i) => daily.values[i]),
      expected,
    );
  });

  it("dimensions not named by the definition are not constrained", () => {
    const z: Dimension = { name: "StdZ", sourceName: "depth", description: "", unit: "m", values: [0, -10, -20] };
    const selection = selectSlices([daily, z], { kind: "BY_VALUE", values: [{ dimension: "StdZ", value: "-10" }] });
    assert.deepEqual([...selection.keys()], ["StdZ"]);
    assert.deepEqual(selection.get("StdZ"), [1]);
  });
});

describe("Subset selection: bad inputs are 400s naming the parameter", () => {
  const NAVY = "monthly_navy_winds.cdf";
  const OCEAN = "ocean_atlas_subset.nc";
  const extent = (e: Record<string, unknown>) => JSON.stringify({ extent: e });
  const bad: { name: string; file?: string; params: Record<string, string>; parameter: string; message?: RegExp }[] = [
    {
      name: "unknown dimension in dimensionValues",
      params: { dimensionDefinition: "BY_VALUE", dimensionValues: '[{"dimension":"StdZ","value":-50}]' },
      parameter: "dimensionValues",
      message: /StdZ.*StdTime/,
    },
    {
      name: "unknown dimension to iterate",
      file: OCEAN,
      params: {
        dimensionDefinition: "BY_ITERATION",
        dimension: "Depth",
        startOfFirstIteration: "0",
        endOfFirstIteration: "10",
        iterationStep: "100",
      },
      parameter: "dimension",
      message: /Depth/,
    },
    { name: "unknown variable", params: { variables: "UWND,SST" }, parameter: "variables", message: /SST.*UWND, VWND/ },
    { name: "variables not a list of names", params: { variables: '[{"name":"UWND"}]' }, parameter: "variables" },
    {
      name: "malformed JSON",
      params: { dimensionDefinition: "BY_RANGES", dimensionRanges: '[{"dimension":"StdTime","minValue":"1990-01-01"' },
      parameter: "dimensionRanges",
      message: /not valid JSON/,
    },
    {
      name: "dimensionRanges not a list of objects",
      params: { dimensionDefinition: "BY_RANGES", dimensionRanges: '"1990-01-01"' },
      parameter: "dimensionRanges",
    },
    {
      name: "missing dimensionValues for BY_VALUE",
      params: { dimensionDefinition: "BY_VALUE" },
      parameter: "dimensionValues",
      message: /required/,
    },
    {
      name: "unknown dimensionDefinition keyword",
      params: { dimensionDefinition: "BY_VALUES" },
      parameter: "dimensionDefinition",
      message: /ALL, BY_VALUE, BY_RANGES, BY_ITERATION/,
    },
    {
      name: "BY_VALUE matching no slice (date without the slice's time of day)",
      params: { dimensionDefinition: "BY_VALUE", dimensionValues: '[{"dimension":"StdTime","value":"1985-07-18"}]' },
      parameter: "dimensionValues",
      message: /keeps no slice/,
    },
    {
      name: "BY_VALUE with a time that is not a time",
      params: { dimensionDefinition: "BY_VALUE", dimensionValues: '[{"dimension":"StdTime","value":"Julember"}]' },
      parameter: "dimensionValues",
    },
    {
      name: "BY_RANGES outside the data",
      params: {
        dimensionDefinition: "BY_RANGES",
        dimensionRanges: '[{"dimension":"StdTime","minValue":"2000-01-01","maxValue":"2000-12-31"}]',
      },
      parameter: "dimensionRanges",
      message: /keeps no slice/,
    },
    {
      name: "minValue after maxValue",
      params: {
        dimensionDefinition: "BY_RANGES",
        dimensionRanges: '[{"dimension":"StdTime","minValue":"1990-12-31","maxValue":"1990-01-01"}]',
      },
      parameter: "dimensionRanges",
    },
    {
      name: "StdZ range with min > max (heights: -100 is below 0)",
      file: OCEAN,
      params: { dimensionDefinition: "BY_RANGES", dimensionRanges: '[{"dimension":"StdZ","minValue":0,"maxValue":-100}]' },
      parameter: "dimensionRanges",
    },
    {
      name: "missing iterationUnit when iterating StdTime",
      params: {
        dimensionDefinition: "BY_ITERATION",
        dimension: "StdTime",
        startOfFirstIteration: "1982-01-01",
        endOfFirstIteration: "1982-03-31",
        iterationStep: "1",
      },
      parameter: "iterationUnit",
    },
    {
      name: "unknown iterationUnit keyword",
      params: {
        dimensionDefinition: "BY_ITERATION",
        dimension: "StdTime",
        startOfFirstIteration: "1982-01-01",
        endOfFirstIteration: "1982-03-31",
        iterationStep: "1",
        iterationUnit: "FORTNIGHTS",
      },
      parameter: "iterationUnit",
      message: /HOURS, DAYS, WEEKS, MONTHS, YEARS/,
    },
    {
      name: "non-integer month step",
      params: {
        dimensionDefinition: "BY_ITERATION",
        dimension: "StdTime",
        startOfFirstIteration: "1982-01-01",
        endOfFirstIteration: "1982-01-31",
        iterationStep: "1.5",
        iterationUnit: "MONTHS",
      },
      parameter: "iterationStep",
    },
    {
      name: "iterationStep not a number",
      params: {
        dimensionDefinition: "BY_ITERATION",
        dimension: "StdTime",
        startOfFirstIteration: "1982-01-01",
        endOfFirstIteration: "1982-01-31",
        iterationStep: "one",
        iterationUnit: "MONTHS",
      },
      parameter: "iterationStep",
    },
    {
      name: "BY_ITERATION whose windows keep no slice (Jan 31..Feb 15 every 6 months, slices are mid-month)",
      params: {
        dimensionDefinition: "BY_ITERATION",
        dimension: "StdTime",
        startOfFirstIteration: "1982-01-31",
        endOfFirstIteration: "1982-02-15",
        iterationStep: "6",
        iterationUnit: "MONTHS",
      },
      parameter: "dimension",
      message: /keeps no slice/,
    },
    {
      // the atlas's northernmost cells end at 89.5N (any longitude overlaps a global grid)
      name: "extent not overlapping the raster",
      file: OCEAN,
      params: { context: extent({ xmin: 100, ymin: 89.6, xmax: 120, ymax: 90, spatialReference: { wkid: 4326 } }) },
      parameter: "context",
      message: /overlap/,
    },
    {
      name: "extent in an unknown wkid",
      params: { context: extent({ xmin: 100, ymin: -30, xmax: 180, ymax: 30, spatialReference: { wkid: 99999 } }) },
      parameter: "context",
      message: /99999/,
    },
    {
      name: "extent with xmin > xmax",
      params: { context: extent({ xmin: 180, ymin: -30, xmax: 100, ymax: 30, spatialReference: { wkid: 4326 } }) },
      parameter: "context",
    },
    {
      name: "context.outSR in an unknown wkid",
      params: { context: JSON.stringify({ outSR: { wkid: 99999 } }) },
      parameter: "context",
      message: /outSR: wkid 99999/,
    },
    {
      name: "dimensionDefinition and its alias dimensionDef with different values",
      params: {
        dimensionDefinition: "BY_VALUE",
        dimensionDef: "ALL",
        dimensionValues: '[{"dimension":"StdTime","value":"January"}]',
      },
      parameter: "dimensionDefinition",
      message: /twice/,
    },
  ];

  for (const b of bad) {
    it(b.name, async () => {
      await assert.rejects(
        () => parse(b.file ?? NAVY, b.params),
        (e: unknown) => {
          assert.ok(e instanceof InvalidInputError, `expected InvalidInputError, got ${String(e)}`);
          assert.equal(e.parameter, b.parameter, e.message);
          if (b.message) assert.match(e.message, b.message);
          return true;
        },
      );
    });
  }

  it("the alias dimensionDef alone, and repeated with the same value, are accepted", async () => {
    const value = '[{"dimension":"StdTime","value":"January"}]';
    const variants: Record<string, string>[] = [
      { dimensionDef: "by_value", dimensionValues: value },
      { dimensionDefinition: "BY_VALUE", dimensionDef: "BY_VALUE", dimensionValues: value },
    ];
    for (const params of variants) {
      const { options } = await parse(NAVY, params);
      assert.equal(options.variables[0].indices[0].length, 11);
    }
  });

  it("BY_VALUE on StdTime is the same instant, not within a relative 1e-9 (62 s at year 0)", async () => {
    for (const [file, value] of [
      ["coads_climatology.cdf", "0000-01-16T06:00:30"],
      [NAVY, "1985-07-18T05:00:00.400"],
    ]) {
      await assert.rejects(
        () => parse(file, { dimensionDefinition: "BY_VALUE", dimensionValues: JSON.stringify([{ dimension: "StdTime", value }]) }),
        (e: unknown) => e instanceof InvalidInputError && e.parameter === "dimensionValues",
        `${file} ${value} matched a slice`,
      );
    }
  });

  /**
   * The plan's window is the stored navy grid's `column`, `row`, `width` × `height`, on the grid
   * as the context presents it (the same meridian, maybe numbered otherwise); its western
   * column's longitude as presented.
   */
  async function assertNavyWindow(
    options: SubsetOptions,
    stored: { column: number; row: number; width: number; height: number },
  ): Promise<number> {
    const navy = await openCube(REAL + NAVY);
    try {
      const presented = applyContext(navy, options).cube.grid;
      const w = options.window;
      assert.deepEqual([w.width, w.height, w.y], [stored.width, stored.height, stored.row]);
      const west = presented.x[w.x];
      assert.ok(sameLongitude(west, navy.grid.x[stored.column]), `${west} is ${navy.grid.x[stored.column]}`);
      return west;
    } finally {
      await navy.close();
    }
  }

  it("an extent in -180..180 longitudes clips a 0..360 grid (lon -170..-150 = columns 190..210)", async () => {
    const { options } = await parse(NAVY, {
      context: extent({ xmin: -170, ymin: -10, xmax: -150, ymax: 10, spatialReference: { wkid: 4326 } }),
    });
    // Columns 68..76 of the stored grid (190..210°E), numbered as the extent numbers them.
    const west = await assertNavyWindow(options, { column: 68, row: 32, width: 9, height: 9 });
    assert.ok(west < 0, `in the extent's numbering: ${west}`);
  });

  it("an extent whose spatialReference is a WKT is read in that CRS, not assumed to be the raster's", async () => {
    const [xmin, ymin] = [(100 * Math.PI * 6378137) / 180, 6378137 * Math.log(Math.tan(Math.PI / 4 + (-30 * Math.PI) / 360))];
    const [xmax, ymax] = [(180 * Math.PI * 6378137) / 180, 6378137 * Math.log(Math.tan(Math.PI / 4 + (30 * Math.PI) / 360))];
    const wkt =
      'PROJCS["WGS 84 / Pseudo-Mercator",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],' +
      'PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],PROJECTION["Mercator_1SP"],PARAMETER["central_meridian",0],' +
      'PARAMETER["scale_factor",1],PARAMETER["false_easting",0],PARAMETER["false_northing",0],UNIT["metre",1],AUTHORITY["EPSG","3857"]]';
    const { options } = await parse(NAVY, { context: extent({ xmin, ymin, xmax, ymax, spatialReference: { wkt } }) });
    // 100..180°E and 30°S..30°N: columns 32..64 and rows 24..48 of the stored grid.
    await assertNavyWindow(options, { column: 32, row: 24, width: 33, height: 25 });
    // A WKT naming a CRS the server cannot convert from is a 400, not degrees.
    await assert.rejects(
      () =>
        parse(NAVY, {
          context: extent({
            xmin: 100,
            ymin: -30,
            xmax: 180,
            ymax: 30,
            spatialReference: { wkt: 'PROJCS["Unknown",AUTHORITY["EPSG","99999"]]' },
          }),
        }),
      (e: unknown) => e instanceof InvalidInputError && e.parameter === "context",
    );
  });

  it("unknown parameters and context keys are warnings, not errors", async () => {
    const { warnings } = await parse(NAVY, { colour: "red", context: JSON.stringify({ colour: "red", processorType: "GPU" }) });
    assert.ok(
      warnings.some((w) => w.includes("colour is not a parameter")),
      warnings.join("; "),
    );
    assert.ok(
      warnings.some((w) => w.includes("context.colour")),
      warnings.join("; "),
    );
    assert.ok(
      warnings.some((w) => w.includes("GPU")),
      warnings.join("; "),
    );
  });
});
