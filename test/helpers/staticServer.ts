/** A static file server on loopback for tests that read over HTTP (Zarr, cloud stores). */
import { readFile, stat } from "node:fs/promises";
import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve, sep } from "node:path";

export interface StaticServer {
  readonly url: URL;
  /** Paths requested so far (URL pathnames), in order. */
  readonly requests: string[];
  /** The most requests that were being answered at the same time. */
  readonly maxInFlight: number;
  close(): Promise<void>;
}

/** Serve the files under `root` (GET/HEAD, 404 for anything missing or outside). */
export async function serveDirectory(root: string): Promise<StaticServer> {
  const base = resolve(root);
  const requests: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    res.on("close", () => inFlight--);
    void (async () => {
      // Answer a little later, so concurrent requests overlap as they would on a network.
      await new Promise((r) => setTimeout(r, 2));
      const pathname = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
      requests.push(pathname);
      const file = resolve(base, "." + pathname);
      if (req.method !== "GET" && req.method !== "HEAD") {
        res.writeHead(405).end();
        return;
      }
      if (!file.startsWith(base + sep) || !(await stat(file).catch(() => undefined))?.isFile()) {
        res.writeHead(404, { "content-type": "text/plain" }).end("not found");
        return;
      }
      const body = await readFile(file);
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": body.length });
      res.end(req.method === "HEAD" ? undefined : body);
    })().catch((e: unknown) => {
      res.writeHead(500).end(String(e));
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/`),
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
    close: () =>
      new Promise<void>((ok, fail) => {
        server.closeAllConnections();
        server.close((e) => (e ? fail(e) : ok()));
      }),
  };
}
