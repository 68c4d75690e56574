/**
 * The trend statistics' distribution functions (src/analysis/statDistributions.ts) against
 * mpmath at 60 digits (test/golden/analysis/distributions.json, written by
 * scripts/goldens/make_distribution_goldens.py), over both tails and degrees of freedom from 1
 * to 1e7. These figures are also why the functions stay hand-written (docs/architecture.md).
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, it } from "node:test";
import { erfc, tTwoSidedP } from "../../src/analysis/statDistributions.js";

interface Golden {
  erfc: { x: number; erfc: number }[];
  tTwoSided: { t: number; df: number; p: number }[];
}
const golden = JSON.parse(await readFile(new URL("../golden/analysis/distributions.json", import.meta.url), "utf8")) as Golden;

const relative = (got: number, want: number): number => Math.abs(got - want) / want;

describe("distributions against mpmath", () => {
  it("erfc to 1e-14 relative from x = -6 to 26.5 (values down to 1e-300)", () => {
    assert.ok(golden.erfc.length >= 30);
    for (const { x, erfc: want } of golden.erfc) assert.ok(relative(erfc(x), want) < 1e-14, `erfc(${x}) = ${erfc(x)}, mpmath ${want}`);
  });

  it("two-sided Student t p-values to 1e-11 relative up to df 1e5, 1e-9 at df 1e7", () => {
    assert.ok(golden.tTwoSided.length >= 300);
    for (const { t, df, p } of golden.tTwoSided) {
      const bound = df <= 1e5 ? 1e-11 : 1e-9;
      assert.ok(relative(tTwoSidedP(t, df), p) < bound, `t ${t}, df ${df}: ${tTwoSidedP(t, df)}, mpmath ${p}`);
      assert.equal(tTwoSidedP(-t, df), tTwoSidedP(t, df), "symmetric in t");
    }
  });
});
