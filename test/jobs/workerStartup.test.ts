import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const script = fileURLToPath(new URL("./fixtures/runOneJob.ts", import.meta.url));

describe("job workers start", () => {
  it("from TypeScript sources in a process run with node flags workers refuse to be handed", async () => {
    // --max-old-space-size in a Worker's explicit execArgv is ERR_WORKER_INVALID_EXEC_ARGV.
    const { stdout } = await run(process.execPath, ["--max-old-space-size=512", "--import", "tsx", script], { timeout: 20_000 });
    const job = JSON.parse(stdout) as { status: string; results: unknown };
    assert.equal(job.status, "esriJobSucceeded");
    assert.deepEqual(job.results, { hello: "worker" });
  });
});
