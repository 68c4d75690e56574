/**
 * The chunk encoder's thread (io/chunkEncoder.ts): compresses each chunk it is handed with
 * zstd and writes it to its file, then hands the chunk's buffer back for reuse.
 */
import { writeFileSync } from "node:fs";
import { parentPort } from "node:worker_threads";
import { zstdEncode } from "./zstdCodec.js";

export interface EncodeRequest {
  readonly id: number;
  readonly path: string;
  readonly buffer: ArrayBuffer;
  readonly length: number;
  readonly level: number;
}

export interface EncodeAnswer {
  readonly id: number;
  readonly buffer: ArrayBuffer;
  /** Why the chunk was not written (an fs error code such as ENOSPC, never a path). */
  readonly error?: string;
}

parentPort!.on("message", async (request: EncodeRequest) => {
  let error: string | undefined;
  try {
    writeFileSync(request.path, await zstdEncode(new Uint8Array(request.buffer, 0, request.length), request.level));
  } catch (e) {
    error = (e as NodeJS.ErrnoException).code ?? "the encoder failed";
  }
  parentPort!.postMessage({ id: request.id, buffer: request.buffer, error } satisfies EncodeAnswer, [request.buffer]);
});
