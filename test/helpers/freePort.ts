/** A free loopback port for a server a test starts (another process may take it first; unlikely in tests). */
import { createServer } from "node:net";

/**
 * @example
 * const port = await freePort();
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}
