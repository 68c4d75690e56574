/**
 * directorySize counts the bytes of every regular file under a directory, at any depth and
 * past the many-at-a-time batches (hand-counted sizes), and follows no link; so does
 * directorySizeBlocking, the synchronous walk a job's thread measures its output with.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { directorySize, directorySizeBlocking } from "../../src/store/diskUsage.js";

let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-du-"));
  // A store like a Zarr output: 150 chunk directories of 2 files (i + 1 and 3 bytes), metadata beside.
  for (let i = 0; i < 150; i++) {
    await mkdir(join(dir, "v", String(i), "0"), { recursive: true });
    await writeFile(join(dir, "v", String(i), "0", "0"), Buffer.alloc(i + 1));
    await writeFile(join(dir, "v", String(i), "0", "1"), "abc");
  }
  await writeFile(join(dir, "zarr.json"), "{}");
  await writeFile(join(dir, "elsewhere"), Buffer.alloc(1000));
  await symlink(join(dir, "elsewhere"), join(dir, "v", "link"));
  await mkdir(join(dir, "empty"));
});
after(() => rm(dir, { recursive: true, force: true }));

for (const [name, size] of [
  ["directorySize", directorySize],
  ["directorySizeBlocking", directorySizeBlocking],
] as const) {
  describe(name, () => {
    it("adds every regular file's size, at any depth, once", async () => {
      const chunks = (150 * 151) / 2 + 150 * 3;
      assert.equal(await size(dir), chunks + 2 + 1000);
      assert.equal(await size(join(dir, "v")), chunks);
    });

    it("counts a file alone, an empty directory as 0, and a link as nothing", async () => {
      assert.equal(await size(join(dir, "zarr.json")), 2);
      assert.equal(await size(join(dir, "empty")), 0);
      assert.equal(await size(join(dir, "v", "link")), 0);
    });
  });
}
