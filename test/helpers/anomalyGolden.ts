/**
 * numpy's anomalies (test/golden/analysis/anomaly.json, made by
 * scripts/goldens/make_analysis_goldens.py) and the check of an output against a case's
 * samples: each value within 1e-5 relative, null = nodata.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { Slab, Variable } from "../../src/cube/types.js";

export interface AnomalyCase {
  name: string;
  file: string;
  params: Record<string, string>;
  samples: { variable: string; index: Record<string, number>; row: number; col: number; value: number | null }[];
}

export const ANOMALY_CASES = JSON.parse(readFileSync(new URL("../golden/analysis/anomaly.json", import.meta.url), "utf8")) as AnomalyCase[];

/** Each of `samples` of variable `v` (all of it read into `slab`) as numpy has it; `what` names the run in a failure. */
export function assertSamples(v: Variable, slab: Slab, samples: AnomalyCase["samples"], what = ""): void {
  for (const s of samples) {
    const at = [...v.dimensions.map((d) => s.index[d.name]), s.row, s.col];
    const got = slab.data[at.reduce((off, i, k) => off * slab.shape[k] + i, 0)];
    const where = `${what}${s.variable} ${JSON.stringify(s.index)} row ${s.row} col ${s.col}`;
    if (s.value === null) assert.ok(Number.isNaN(got), `${where}: expected nodata, got ${got}`);
    else {
      assert.ok(!Number.isNaN(got), `${where}: expected ${s.value}, got nodata`);
      assert.ok(Math.abs(got - s.value) <= 1e-5 * Math.abs(s.value), `${where}: expected ${s.value}, got ${got}`);
    }
  }
}
