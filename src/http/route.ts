/**
 * Every resource answers GET and POST alike (SPEC §1) and every failure goes through the
 * error envelope: routes return what to send and never write errors themselves.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { HtmlPage } from "./html.js";
import { send, sendError } from "./respond.js";

export interface Answer {
  readonly body: unknown;
  /** How the resource looks as a page; default: its JSON. */
  readonly page?: () => HtmlPage;
}

export type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<Answer | FastifyReply> | Answer | FastifyReply;

/**
 * @example
 * resource(app, "/rest/info", async () => ({ body: { currentVersion: 11.3 } }));
 */
export function resource(app: FastifyInstance, path: string, handler: Handler): void {
  app.route({
    method: ["GET", "POST"],
    url: path,
    handler: async (request, reply) => {
      try {
        const answer = await handler(request, reply);
        // A reply is thenable: awaiting one that was returned resolves to undefined once sent.
        if (answer === undefined || isReply(answer)) return reply;
        return send(request, reply, answer.body, answer.page);
      } catch (e) {
        return sendError(request, reply, e);
      }
    },
  });
}

function isReply(x: unknown): x is FastifyReply {
  return typeof x === "object" && x !== null && "sent" in x && "raw" in x;
}
