/**
 * The committed WebAssembly kernels (src/kernels/*.wasm.ts) are what their AssemblyScript
 * sources (assembly/) compile to: a source changed without `npm run build:kernels` fails here.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

// @ts-expect-error -- a plain JavaScript build script, without type declarations
import { compileKernels } from "../../scripts/build-kernels.mjs";

describe("WebAssembly kernels", () => {
  it("are compiled from their sources as committed", async () => {
    const compiled: Record<string, string> = await compileKernels();
    assert.ok(Object.keys(compiled).length > 0);
    for (const [file, text] of Object.entries(compiled)) {
      const committed = readFileSync(new URL(`../../src/kernels/${file}`, import.meta.url), "utf8");
      assert.equal(committed, text, `src/kernels/${file} is stale: run npm run build:kernels`);
    }
  });
});
