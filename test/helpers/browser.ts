/**
 * Headless Chromium for browser tests: Debian's /usr/bin/chromium driven by playwright-core
 * (never a downloaded browser), pages served from memory on 127.0.0.1, every request to
 * another host aborted and recorded (so a test proves it used no outside network), and
 * screenshots kept under test-artifacts/.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, type Page, chromium } from "playwright-core";

/** Debian's chromium; STRATA_CHROMIUM points elsewhere. */
export const CHROMIUM_PATH = process.env.STRATA_CHROMIUM ?? "/usr/bin/chromium";

/** Where screenshots go: test-artifacts/ at the project root. */
export const ARTIFACTS_DIR = fileURLToPath(new URL("../../test-artifacts/", import.meta.url));

/**
 * Launch headless Chromium. `--no-sandbox` because tests may run as root in a container.
 * @example
 * const browser = await launchChromium(); ... await browser.close();
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ["--no-sandbox"] });
}

/** Files served by URL path, each with its content type. */
export type ServedFiles = Readonly<Record<string, { readonly body: string | Uint8Array; readonly type: string }>>;

export interface FileServer {
  /** e.g. http://127.0.0.1:40123/ */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serve files held in memory on a free loopback port (GET only; 404 for any other path).
 * @example
 * const site = await serveFiles({ "/": { body: "<p>hi</p>", type: "text/html" } });
 */
export function serveFiles(files: ServedFiles): Promise<FileServer> {
  return serveOnLoopback((req, res) => {
    const file = files[new URL(req.url ?? "/", "http://x").pathname];
    if (req.method !== "GET" || !file) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": file.type, "cache-control": "no-store" }).end(file.body);
  });
}

/** Answer requests with `handler` on a free loopback port. */
export async function serveOnLoopback(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<FileServer> {
  const server: Server = createServer(handler);
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((ok, fail) => {
        server.closeAllConnections();
        server.close((e) => (e ? fail(e) : ok()));
      }),
  };
}

export interface LoopbackPage {
  readonly page: Page;
  /** Every URL the page asked for, in order (loopback or not). */
  readonly requests: string[];
  /** URLs aborted because they were not to 127.0.0.1. */
  readonly blocked: string[];
  /** Uncaught errors in the page's scripts. */
  readonly errors: string[];
  close(): Promise<void>;
}

/**
 * A page in a fresh browser context (1 CSS px = 1 device px) that may only reach 127.0.0.1.
 * @example
 * const { page, blocked } = await openLoopbackPage(browser, { width: 600, height: 600 });
 */
export async function openLoopbackPage(browser: Browser, viewport: { width: number; height: number }): Promise<LoopbackPage> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
  const requests: string[] = [];
  const blocked: string[] = [];
  const errors: string[] = [];
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (new URL(url).hostname === "127.0.0.1") return route.continue();
    blocked.push(url);
    return route.abort("blockedbyclient");
  });
  const page = await context.newPage();
  page.on("request", (r) => requests.push(r.url()));
  page.on("pageerror", (e) => errors.push(e.message));
  return { page, requests, blocked, errors, close: () => context.close() };
}

/**
 * Keep a screenshot (or any PNG) as a test artefact: test-artifacts/<name>.png.
 * @returns the file's path
 */
export async function saveArtifact(name: string, png: Uint8Array): Promise<string> {
  const file = join(ARTIFACTS_DIR, `${name}.png`);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, png);
  return file;
}
