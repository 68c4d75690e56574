/**
 * Output chunks compressed and written on a thread of their own, so a job's thread goes on
 * computing while its last blocks are encoded: zstd and the file writes were a quarter of a
 * streamed anomaly's time on the job's thread. Chunk buffers travel to the encoder and back
 * (transferred, not copied) and are reused; at most IN_FLIGHT chunks are in hand at once, so
 * a fast producer waits rather than queueing the output in memory; or, when the chunk is to
 * be compressed, compresses and writes it itself (a daily zstd anomaly's second pass kept
 * the encoder busy and the job's thread idle a third of the time).
 */
import type { Worker } from "node:worker_threads";
import { chunkWriteFailure, writeChunkFile, writeErrorCode } from "./chunkFile.js";
import type { EncodeAnswer, EncodeRequest } from "./chunkEncoderThread.js";
import { startModuleThread } from "./thread.js";
import { loadZstd, zstdEncodeLoaded } from "./zstdCodec.js";

/** Chunks handed to the encoder and not yet written, at most (a few megabytes). */
const IN_FLIGHT = 8;

export interface ChunkEncoder {
  /**
   * A chunk of `bytes` bytes, which `fill` writes into the buffer it is given (it may not
   * keep it), compressed at zstd `level` (null: stored as it is) and written to `path`.
   * Resolves once `fill` has run (waiting while IN_FLIGHT chunks are in hand, unless the
   * chunk is compressed on this thread meanwhile) to `written`, which resolves once the file
   * is written and rejects with chunkWriteFailure's error (an fs code, never a path).
   */
  put(path: string, bytes: number, level: number | null, fill: (buffer: ArrayBuffer) => void): Promise<{ written: Promise<void> }>;
}

/**
 * The encoder of this thread. Its thread starts with it, so that the thread's start (its
 * modules and zstd, a tenth of a second) passes while the job reads its input rather than
 * before the first chunk is written; it holds the process open only while chunks are in hand.
 * @example
 * const encoder = chunkEncoder();
 * const { written } = await encoder.put("/data/x.zarr/tas/0.0.0", chunk.byteLength, 1, (b) => new Uint8Array(b).set(chunk));
 * await written;
 */
export function chunkEncoder(): ChunkEncoder {
  return (shared ??= startEncoder());
}

let shared: ChunkEncoder | undefined;

function startEncoder(): ChunkEncoder {
  let worker: Worker | undefined;
  let nextId = 0;
  const pending = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  const free: ArrayBuffer[] = [];
  const waiting: (() => void)[] = [];
  let inHand = 0;

  const thread = (): Worker => {
    if (worker) return worker;
    const started = startModuleThread(import.meta.url, "chunkEncoderThread", undefined);
    started.on("message", ({ id, buffer, error }: EncodeAnswer) => {
      const request = pending.get(id)!;
      pending.delete(id);
      if (free.length < IN_FLIGHT) free.push(buffer);
      inHand--;
      if (pending.size === 0) started.unref(); // idle: let the process exit
      waiting.shift()?.();
      if (error) request.reject(chunkWriteFailure(error));
      else request.resolve();
    });
    started.on("error", (e) => {
      // The chunks in hand are lost with the thread: fail their writers and free their places.
      inHand -= pending.size;
      for (const request of pending.values()) request.reject(e);
      pending.clear();
      for (const wake of waiting.splice(0)) wake();
      worker = undefined;
    });
    started.unref(); // idle until the first write
    worker = started;
    return started;
  };
  thread();

  /** Whether every place is taken, once the encoder's answers that have arrived (messages) are taken in. */
  const behind = async (): Promise<boolean> => {
    if (inHand < IN_FLIGHT) return false;
    await new Promise((resolve) => setImmediate(resolve));
    return inHand >= IN_FLIGHT;
  };
  /** The buffer a chunk compressed on this thread is filled in (filled and compressed with no wait between). */
  let own: ArrayBuffer | undefined;

  return {
    async put(path, bytes, level, fill) {
      if (level !== null && (await behind())) {
        await loadZstd();
        if (!own || own.byteLength < bytes) own = new ArrayBuffer(bytes);
        fill(own);
        try {
          writeChunkFile(path, zstdEncodeLoaded(new Uint8Array(own, 0, bytes), level));
          return { written: Promise.resolve() };
        } catch (e) {
          return { written: Promise.reject(chunkWriteFailure(writeErrorCode(e))) };
        }
      }
      while (inHand >= IN_FLIGHT) await new Promise<void>((resolve) => waiting.push(resolve));
      inHand++;
      const i = free.findIndex((b) => b.byteLength >= bytes);
      const buffer = i >= 0 ? free.splice(i, 1)[0] : new ArrayBuffer(bytes);
      fill(buffer);
      const id = nextId++;
      const w = thread();
      w.ref();
      const written = new Promise<void>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        w.postMessage({ id, path, buffer, length: bytes, level } satisfies EncodeRequest, [buffer]);
      });
      return { written };
    },
  };
}
