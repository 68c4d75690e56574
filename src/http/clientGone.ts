/**
 * Work done for a client that has gone away is wasted: this signal aborts when the response's
 * connection closes before the response was sent, so a waiting request leaves the work queue
 * and a running one stops.
 */
import type { FastifyReply } from "fastify";

/**
 * @example
 * await ctx.work.run("export", input, { lane: "quick", signal: clientGone(reply) });
 */
export function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once("close", () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}
