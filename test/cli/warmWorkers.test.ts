/**
 * --warm-workers: job threads a server starts ready (the task module and readers loaded),
 * one by default, none when asked (small machines keep ~65 MB), never more than --workers.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { resolveServeConfig } from "../../src/cli/serveConfig.js";
import { startTestServer } from "../helpers/server.js";

describe("--warm-workers", () => {
  it("is 1 by default, 0 or up to --workers when asked, and a bad value names the flag", () => {
    assert.equal(resolveServeConfig({ workers: "4" }, {}).warmWorkers, 1);
    assert.equal(resolveServeConfig({ workers: "4", "warm-workers": "0" }, {}).warmWorkers, 0);
    assert.equal(resolveServeConfig({ workers: "4" }, { STRATA_WARM_WORKERS: "4" }).warmWorkers, 4);
    for (const bad of ["5", "-1", "one", "1.5"]) {
      assert.throws(
        () => resolveServeConfig({ workers: "4", "warm-workers": bad }, {}),
        new RegExp(`^InvalidInputError: --warm-workers must be a whole number from 0 to 4; got "${bad}"`),
        bad,
      );
    }
  });

  it("a server starts that many job threads before any job", async (t) => {
    for (const [flag, threads] of [
      ["0", 0],
      ["2", 2],
    ] as const) {
      const server = await startTestServer({ "warm-workers": flag, "no-samples": true });
      t.after(() => server.close());
      assert.equal((await server.strata.jobs.stats()).workers, threads, `--warm-workers ${flag}`);
    }
  });
});
