/**
 * A real file whose time is `months since`: hgt.nc, NCEP reanalysis 500 hPa heights as NCL
 * ships them (Debian libncarg-data; fetched by scripts/fixtures.sh), time
 * `months since 1958-1-1 00:00:00` in the default calendar. Opening it and `strata info`
 * give the timestamps CDO prints for it (`cdo showtimestamp`, saved by
 * scripts/goldens/make_cdo_time_goldens.py). Skipped when the fixture is absent.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";

import { STD_TIME } from "../../src/cube/types.js";
import { openCube } from "../../src/io/open.js";
import { strata } from "../helpers/cli.js";
import { REAL } from "../helpers/golden.js";

const HGT = `${REAL}hgt.nc`;
const golden = JSON.parse(readFileSync(new URL("../golden/time/cdo_calendar_months.json", import.meta.url), "utf8")) as {
  hgt: { timestamps: string[] };
};
// CDO prints dates in the file's calendar without a zone; this one is standard, after 1582, UTC.
const expected = golden.hgt.timestamps.map((t) => `${t}Z`);
const skip = existsSync(HGT) ? false : `${HGT} is missing: run bash scripts/fixtures.sh`;

describe("hgt.nc (months since 1958-1-1)", { skip }, () => {
  it("opens with CDO's time values", async () => {
    const cube = await openCube(HGT);
    try {
      assert.deepEqual(
        cube.variables.map((v) => [v.name, v.dimensions.map((d) => d.name)]),
        [["HGT", [STD_TIME]]],
      );
      const time = cube.variables[0].dimensions[0];
      assert.equal(time.calendar, "standard");
      assert.deepEqual(
        time.values.map((ms) => new Date(ms).toISOString().replace(".000Z", "Z")),
        expected,
      );
      assert.equal(time.interval, undefined); // 0, 1, then every 12 months: irregular
    } finally {
      await cube.close();
    }
  });

  it("strata info lists them", async () => {
    const json = await strata("info", "--json", HGT);
    assert.equal(json.code, 0, json.stderr);
    const info = JSON.parse(json.stdout) as { dimensions: { name: string; isoValues?: string[] }[] };
    assert.deepEqual(info.dimensions.find((d) => d.name === STD_TIME)?.isoValues, expected);
    const text = await strata("info", HGT);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /StdTime \(from time\): 21 values, irregular, calendar standard/);
    assert.ok(text.stdout.includes(`${expected[0]}, ${expected[1]}, ${expected[2]}`), text.stdout);
  });
});
