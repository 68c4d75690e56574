/**
 * The web app must be built (web/dist) for the server to serve it. `npm test` builds it in
 * pretest; run alone, a test builds it here when it is missing or older than its sources.
 */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const WEB = fileURLToPath(new URL("../../web/", import.meta.url));

async function newestSource(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name === "dist" || entry.name === "node_modules") continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? await newestSource(path) : (await stat(path)).mtimeMs);
  }
  return newest;
}

export async function ensureWebBuilt(): Promise<void> {
  const built = await stat(join(WEB, "dist/index.html")).then(
    (s) => s.mtimeMs,
    () => 0,
  );
  if (built > (await newestSource(WEB))) return;
  const { build } = await import("vite");
  await build({ configFile: join(WEB, "vite.config.ts"), logLevel: "warn" });
}
