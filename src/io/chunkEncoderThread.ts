/**
 * The chunk encoder's thread (io/chunkEncoder.ts): compresses each chunk it is handed with
 * zstd (unless its level is null) and writes it to its file (io/chunkFile.ts), then hands
 * the chunk's buffer back for reuse.
 */
import { parentPort } from "node:worker_threads";
import { writeChunkFile, writeErrorCode } from "./chunkFile.js";
import { loadZstd, zstdEncode } from "./zstdCodec.js";

export interface EncodeRequest {
  readonly id: number;
  readonly path: string;
  readonly buffer: ArrayBuffer;
  readonly length: number;
  /** zstd's level; null writes the bytes as they are. */
  readonly level: number | null;
}

export interface EncodeAnswer {
  readonly id: number;
  readonly buffer: ArrayBuffer;
  /** Why the chunk was not written (an fs error code such as ENOSPC, never a path). */
  readonly error?: string;
}

void loadZstd().catch(() => {}); // ahead of the first chunk; a failure shows there

parentPort!.on("message", async (request: EncodeRequest) => {
  let error: string | undefined;
  try {
    const bytes = new Uint8Array(request.buffer, 0, request.length);
    writeChunkFile(request.path, request.level === null ? bytes : await zstdEncode(bytes, request.level));
  } catch (e) {
    error = writeErrorCode(e);
  }
  parentPort!.postMessage({ id: request.id, buffer: request.buffer, error } satisfies EncodeAnswer, [request.buffer]);
});
