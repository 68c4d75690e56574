/**
 * multipart/form-data bodies: fields become string parameters like a urlencoded body's, and
 * a file is streamed to a scratch file on disk (never held in memory), up to the limit the
 * route allows the caller (0 on routes that take no file: its bytes are read and dropped).
 * A body that cannot be read — truncated, without a boundary, a file over its limit — is a
 * 400 naming what is wrong, not a framework 500. Scratch files a route did not move away
 * are removed once the response is sent.
 */
import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { InvalidInputError, StrataError } from "../cube/errors.js";

/** A file part of a multipart body, as the route sees it in `request.body`. */
export interface UploadedFile {
  /** Where its bytes are (under the scratch directory). */
  readonly path: string;
  /** The name the client gave it. */
  readonly filename: string;
  readonly bytes: number;
}

export interface MultipartOptions {
  /** Where uploaded files are streamed to. */
  readonly scratchDir: string;
  /**
   * Most bytes a file of this request may have; called once, at the first file part, so it
   * can authenticate the caller first (its errors answer the request).
   */
  fileLimit(request: FastifyRequest): number | Promise<number>;
}

/** Text fields: many small parameters, none larger than a big JSON descriptor. */
const LIMITS = { fields: 1000, fieldSize: 8 * 1024 * 1024, parts: 1100, files: 1 } as const;

/**
 * @example
 * registerMultipartBodies(app, { scratchDir: "/data/tmp/uploads", fileLimit: () => 2 * 1024 ** 3 });
 * // in a route: const file = (request.body as Record<string, unknown>).file as UploadedFile | undefined;
 */
export function registerMultipartBodies(app: FastifyInstance, options: MultipartOptions): void {
  const scratch = new WeakMap<FastifyRequest, string[]>();
  app.addHook("preValidation", async (request, reply) => {
    if (!request.isMultipart()) return;
    // Filled as parts arrive, so an error answers in the f the body asked for so far.
    const body: Record<string, unknown> = {};
    request.body = body;
    const paths: string[] = [];
    scratch.set(request, paths);
    let limit: number | undefined;
    try {
      for await (const part of request.parts({ limits: { ...LIMITS, fileSize: Number.MAX_SAFE_INTEGER } })) {
        if (part.type === "field") {
          body[part.fieldname] = typeof part.value === "string" ? part.value : String(part.value);
          continue;
        }
        limit ??= await options.fileLimit(request);
        if (limit <= 0) {
          part.file.resume(); // a file where none is taken: read past it
          continue;
        }
        await mkdir(options.scratchDir, { recursive: true });
        const path = join(options.scratchDir, `upload-${randomUUID()}`);
        paths.push(path);
        let bytes = 0;
        part.file.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes > limit!) part.file.destroy(tooLarge(part.fieldname, limit!));
        });
        await pipeline(part.file, createWriteStream(path, { flags: "wx", mode: 0o600 }));
        body[part.fieldname] = { path, filename: part.filename, bytes } satisfies UploadedFile;
      }
      // A new object: parameters read while the body was arriving (to authenticate) are stale.
      request.body = { ...body };
    } catch (e) {
      // The rest of the body stays unread (no point reading a refused gigabyte); the
      // connection cannot carry another request after it.
      reply.header("Connection", "close");
      if (e instanceof StrataError) throw e;
      throw new InvalidInputError(`the multipart/form-data body could not be read: ${reason(e)}`, { parameter: "body" });
    }
  });
  app.addHook("onResponse", async (request) => {
    const paths = scratch.get(request);
    if (paths?.length) await Promise.all(paths.map((p) => rm(p, { force: true })));
  });
}

function tooLarge(field: string, limit: number): InvalidInputError {
  return new InvalidInputError(
    `${field} is larger than the ${(limit / 1024 ** 2).toFixed(1)} MiB you may upload (the upload limit or your storage quota left)`,
    { parameter: field },
  );
}

/** busboy's and the plugin's words, without anything of the server. */
function reason(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  if (/boundary/i.test(message)) return "its Content-Type has no boundary";
  if (/unexpected end|premature close|aborted/i.test(message)) return "it ended before its closing boundary (truncated)";
  if (/too many|limit/i.test(message)) return `it has more parts than allowed (at most ${LIMITS.fields} fields and ${LIMITS.files} file)`;
  return "it is not well-formed";
}
