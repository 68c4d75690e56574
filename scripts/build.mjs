// Build what `npm start` runs, and only what is stale (so a start with nothing changed costs
// a few milliseconds): the server, TypeScript to JavaScript in dist/ (tsc without its type
// check, which `npm run lint` does; about 5 s), and the web app into web/dist/ (vite, about
// 6 s). Freshness is by modification time (scripts/buildState.mjs), the same test
// bin/strata.js makes before it runs dist/.
//
//   node scripts/build.mjs [server] [web] [--force] [--optional]
//
// No target names both. --force builds even what is fresh. Without the build tools (a
// production install, `npm ci --omit=dev`), a stale build is kept with a warning and a
// missing one is an error, unless --optional (npm's prepare hook) says to go on.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { ROOT, SERVER_STAMP, WEB_STAMP, serverBuildState, webBuildState } from "./buildState.mjs";

const args = process.argv.slice(2);
const force = args.includes("--force");
const optional = args.includes("--optional");
const named = args.filter((a) => !a.startsWith("--"));
for (const a of named) if (a !== "server" && a !== "web") fail(`unknown target "${a}" (server, web)`);
const targets = named.length ? named : ["server", "web"];
const require = createRequire(join(ROOT, "package.json"));

/** The path of a package's bin script, or undefined when the package is not installed. */
function tool(pkg, bin) {
  try {
    return join(dirname(require.resolve(`${pkg}/package.json`)), bin);
  } catch {
    return undefined;
  }
}

function fail(message) {
  console.error(`build: ${message}`);
  process.exit(1);
}

function run(script, scriptArgs) {
  const started = Date.now();
  const result = spawnSync(process.execPath, [script, ...scriptArgs], { cwd: ROOT, stdio: "inherit" });
  if (result.status !== 0) fail(`${scriptArgs.join(" ")} failed`);
  return ((Date.now() - started) / 1000).toFixed(1);
}

function build(name, state, pkg, bin, scriptArgs, after) {
  if (state === "fresh" && !force) return;
  const script = tool(pkg, bin);
  if (!script) {
    const what = `${name === "server" ? "dist/" : "web/dist/"} is ${state} and ${pkg} is not installed (a production install)`;
    if (state === "stale" || optional) {
      const then = state === "stale" ? "using what is there" : "not built";
      return console.error(`build: ${what}; ${then}. Build before pruning: see docs/operations.md`);
    }
    fail(`${what}. Build with the development dependencies first (npm ci && npm run build), then npm prune --omit=dev.`);
  }
  console.error(`build: ${name} (${state})...`);
  const started = new Date();
  const seconds = run(script, scriptArgs);
  after?.(started);
  console.error(`build: ${name} built in ${seconds} s`);
}

if (targets.includes("server")) {
  // --noCheck: emit only; the type check is lint's (and would double the time of every start).
  build("server", serverBuildState(), "typescript", "bin/tsc", ["-p", "tsconfig.build.json", "--noCheck"], (started) => {
    // Dated when the build began: a source saved while tsc ran still counts as newer.
    mkdirSync(dirname(SERVER_STAMP), { recursive: true });
    writeFileSync(SERVER_STAMP, `${started.toISOString()}\n`);
    utimesSync(SERVER_STAMP, started, started);
  });
}
if (targets.includes("web")) {
  build("web", webBuildState(), "vite", "bin/vite.js", ["build", "--config", "web/vite.config.ts", "--logLevel", "warn"]);
  if (!existsSync(WEB_STAMP) && !optional) fail("web/dist/index.html is missing after the build");
}
