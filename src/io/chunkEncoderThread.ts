/**
 * The chunk encoder's thread (io/chunkEncoder.ts): compresses each chunk it is handed with
 * zstd (unless its level is null) and writes it to its file (making its directory when
 * missing), then hands the chunk's buffer back for reuse.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { parentPort } from "node:worker_threads";
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
    const encoded = request.level === null ? bytes : await zstdEncode(bytes, request.level);
    try {
      writeFileSync(request.path, encoded);
    } catch (e) {
      // A directory made by its first chunk, here (off the job's thread): chunks kept between
      // passes (io/zarrChunks.ts keep), and keys separated by "/", which nest chunks in
      // directories (Strata's own outputs separate by ".").
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      mkdirSync(dirname(request.path), { recursive: true });
      writeFileSync(request.path, encoded);
    }
  } catch (e) {
    error = (e as NodeJS.ErrnoException).code ?? "the encoder failed";
  }
  parentPort!.postMessage({ id: request.id, buffer: request.buffer, error } satisfies EncodeAnswer, [request.buffer]);
});
