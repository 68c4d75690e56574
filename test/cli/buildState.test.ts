/**
 * bin/strata.js runs dist/ only when it is at least as new as the sources (issue 15): the
 * newest modification time under a tree counts directories too, so a deleted or renamed
 * source makes a build stale, and node_modules and dist are not walked.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
// @ts-expect-error -- plain JavaScript without declarations (it runs before anything is built)
import { newestMtime } from "../../scripts/buildState.mjs";

const dir = await mkdtemp(join(tmpdir(), "strata-build-"));
after(() => rm(dir, { recursive: true, force: true }));

describe("build freshness", () => {
  it("is the newest file or directory under the tree, node_modules and dist aside, 0 when absent", async () => {
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
    await mkdir(join(dir, "src", "a"), { recursive: true });
    await mkdir(join(dir, "src", "node_modules"));
    await mkdir(join(dir, "src", "dist"));
    await writeFile(join(dir, "src", "a", "x.ts"), "");
    await writeFile(join(dir, "src", "node_modules", "y.js"), "");
    await writeFile(join(dir, "src", "dist", "z.js"), "");
    for (const [path, s] of [
      ["src/a/x.ts", 30],
      ["src/a", 10],
      ["src", 10],
      ["src/node_modules/y.js", 50],
      ["src/node_modules", 50],
      ["src/dist/z.js", 50],
      ["src/dist", 50],
    ] as const)
      await utimes(join(dir, path), at(s), at(s));
    assert.equal(newestMtime(join(dir, "src")), at(30).getTime());
    await utimes(join(dir, "src", "a"), at(40), at(40)); // a file removed or renamed in src/a
    assert.equal(newestMtime(join(dir, "src")), at(40).getTime());
    assert.equal(newestMtime(join(dir, "nothing")), 0);
  });
});
