/**
 * The chunk encoder's thread (io/chunkEncoder.ts): summarizes each chunk it is handed when
 * asked (io/chunkSummary.ts), compresses it with zstd (unless its level is null) and writes
 * it to its file (io/chunkFile.ts), then hands the chunk's buffer back for reuse.
 */
import { parentPort } from "node:worker_threads";
import { writeChunkFile, writeErrorCode } from "./chunkFile.js";
import { type ChunkSummaryRequest, chunkSummary } from "./chunkSummary.js";
import { loadZstd, zstdFrame } from "./zstdCodec.js";

export interface EncodeRequest {
  readonly id: number;
  readonly path: string;
  /** The chunk, handed back with the answer; or where it is in shared memory, written from there as it is. */
  readonly buffer?: ArrayBuffer;
  readonly shared?: { readonly buffer: SharedArrayBuffer; readonly offset: number };
  readonly length: number;
  /** zstd's level; null writes the bytes as they are. */
  readonly level: number | null;
  readonly summarize?: ChunkSummaryRequest;
  /** Where in its file the chunk goes (ChunkPut.at). */
  readonly at?: number;
}

export interface EncodeAnswer {
  readonly id: number;
  readonly buffer?: ArrayBuffer;
  /** Why the chunk was not written (an fs error code such as ENOSPC, never a path). */
  readonly error?: string;
  /** The chunk's summary, when asked for; or why there is none (the summary's error's message). */
  readonly summary?: unknown;
  readonly summaryError?: string;
}

void loadZstd().catch(() => {}); // ahead of the first chunk; a failure shows there

parentPort!.on("message", async (request: EncodeRequest) => {
  let error: string | undefined;
  let summary: unknown;
  let summaryError: string | undefined;
  const { buffer, shared } = request;
  const bytes = shared ? new Uint8Array(shared.buffer, shared.offset, request.length) : new Uint8Array(buffer!, 0, request.length);
  if (request.summarize) {
    try {
      summary = (await chunkSummary(request.summarize))(bytes);
    } catch (e) {
      summaryError = (e as Error).message;
    }
  }
  try {
    if (request.level !== null) await loadZstd();
    writeChunkFile(request.path, request.level === null ? bytes : zstdFrame(bytes, request.level), request.at);
  } catch (e) {
    error = writeErrorCode(e);
  }
  parentPort!.postMessage({ id: request.id, buffer, error, summary, summaryError } satisfies EncodeAnswer, buffer ? [buffer] : []);
});
