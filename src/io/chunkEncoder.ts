/**
 * Output chunks compressed and written on a thread of their own, so a job's thread goes on
 * computing while its last blocks are encoded: zstd and the file writes were a quarter of a
 * streamed anomaly's time on the job's thread. Chunk buffers travel to the encoder and back
 * (transferred, not copied) and are reused; at most IN_FLIGHT chunks are in hand at once, so
 * a fast producer waits rather than queueing the output in memory.
 */
import type { Worker } from "node:worker_threads";
import { chunkWriteFailure } from "./chunkFile.js";
import type { EncodeAnswer, EncodeRequest } from "./chunkEncoderThread.js";
import { startModuleThread } from "./thread.js";

/** Chunks handed to the encoder and not yet written, at most (a few megabytes). */
const IN_FLIGHT = 8;

export interface ChunkEncoder {
  /** A buffer of at least `bytes` bytes to fill with a chunk; waits while IN_FLIGHT chunks are in hand. */
  buffer(bytes: number): Promise<ArrayBuffer>;
  /**
   * Compress the first `length` bytes of `buffer` (taken over: do not touch it again) at zstd
   * `level` (null: store them as they are) and write them to `path`; resolves once written,
   * rejects with the fs error's code.
   */
  write(path: string, buffer: ArrayBuffer, length: number, level: number | null): Promise<void>;
  /**
   * Whether every place is taken (buffer would wait), once the answers that have come in are
   * taken: a caller with nothing else to do may encode and write a chunk itself meanwhile.
   */
  behind(): Promise<boolean>;
}

/**
 * The encoder of this thread. Its thread starts with it, so that the thread's start (its
 * modules and zstd, a tenth of a second) passes while the job reads its input rather than
 * before the first chunk is written; it holds the process open only while chunks are in hand.
 * @example
 * const encoder = chunkEncoder();
 * const buffer = await encoder.buffer(chunk.byteLength);
 * new Uint8Array(buffer).set(chunk);
 * await encoder.write("/data/x.zarr/tas/0.0.0", buffer, chunk.byteLength, 1);
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

  return {
    async behind() {
      if (inHand < IN_FLIGHT) return false;
      // The encoder's answers are messages: let those that have arrived free their places.
      await new Promise((resolve) => setImmediate(resolve));
      return inHand >= IN_FLIGHT;
    },
    async buffer(bytes) {
      while (inHand >= IN_FLIGHT) await new Promise<void>((resolve) => waiting.push(resolve));
      inHand++;
      const i = free.findIndex((b) => b.byteLength >= bytes);
      return i >= 0 ? free.splice(i, 1)[0] : new ArrayBuffer(bytes);
    },
    write(path, buffer, length, level) {
      const id = nextId++;
      const w = thread();
      w.ref();
      return new Promise<void>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        w.postMessage({ id, path, buffer, length, level } satisfies EncodeRequest, [buffer]);
      });
    },
  };
}
