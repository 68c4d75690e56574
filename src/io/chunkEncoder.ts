/**
 * Output chunks compressed and written on a thread of their own, so a job's thread goes on
 * computing while its last blocks are encoded: zstd and the file writes were a quarter of a
 * streamed anomaly's time on the job's thread. Chunk buffers travel to the encoder and back
 * (transferred, not copied) and are reused; at most IN_FLIGHT chunks of IN_FLIGHT_BYTES in
 * all are in hand at once, so a fast producer waits rather than queueing the output in
 * memory; or, when the chunk is to be compressed, compresses and writes it itself (a daily
 * zstd anomaly's second pass kept the encoder busy and the job's thread idle a third of the
 * time). Whichever thread encodes a chunk also summarizes it when asked (the output's
 * statistics, io/chunkSummary.ts): in a raw anomaly they were a fifth of the job's thread,
 * with the encoder's thread mostly idle.
 */
import type { Worker } from "node:worker_threads";
import { chunkWriteFailure, writeChunkFile, writeErrorCode } from "./chunkFile.js";
import type { EncodeAnswer, EncodeRequest } from "./chunkEncoderThread.js";
import { type ChunkSummaryRequest, chunkSummary } from "./chunkSummary.js";
import { startModuleThread } from "./thread.js";
import { loadZstd, zstdFrame } from "./zstdCodec.js";

/** Chunks handed to the encoder and not yet written, at most... */
const IN_FLIGHT = 8;
/** ...and their bytes, at most (but always one chunk): a raw output's chunk may hold a whole run of several megabytes. */
const IN_FLIGHT_BYTES = 16 * 1024 * 1024;

/** How a chunk is written (ChunkEncoder.put). */
export interface ChunkPut {
  /** zstd's level; null stores the chunk as it is. */
  readonly level: number | null;
  /** The chunk's summary to compute where it is encoded (io/chunkSummary.ts). */
  readonly summarize?: ChunkSummaryRequest;
  /** Where in its file the chunk goes, the file otherwise left as it is (a kept block's chunks share one file); else the chunk is the whole file. */
  readonly at?: number;
}

export interface ChunkEncoder {
  /**
   * A chunk of `bytes` bytes, which `fill` writes into the buffer it is given (it may not
   * keep it), encoded and written to `path` as `how` says. Resolves once `fill` has run
   * (waiting while no place is free, unless the chunk is encoded on this thread
   * meanwhile) to `written`, which resolves once the file is written and rejects with
   * chunkWriteFailure's error (an fs code, never a path); and, when summarized, to `summary`.
   */
  put(
    path: string,
    bytes: number,
    fill: (buffer: ArrayBuffer) => void,
    how: ChunkPut,
  ): Promise<{ written: Promise<void>; summary?: Promise<unknown> }>;
  /**
   * put for a chunk in shared memory (a kernel's: kernels/arena.ts), encoded and written
   * straight from there, with no copy into a buffer of the encoder's: the caller leaves
   * `bytes` alone until `written` settles. Resolves once the chunk is handed over (encoded
   * on this thread meanwhile when the encoder is behind).
   */
  putShared(
    path: string,
    bytes: Uint8Array<SharedArrayBuffer>,
    how: ChunkPut,
  ): Promise<{ written: Promise<void>; summary?: Promise<unknown> }>;
}

/**
 * The encoder of this thread. Its thread starts with it, so that the thread's start (its
 * modules and zstd, a tenth of a second) passes while the job reads its input rather than
 * before the first chunk is written; it holds the process open only while chunks are in hand.
 * @example
 * const encoder = chunkEncoder();
 * const { written } = await encoder.put("/data/x.zarr/tas/0.0.0", chunk.byteLength, (b) => new Uint8Array(b).set(chunk), { level: 1 });
 * await written;
 */
export function chunkEncoder(): ChunkEncoder {
  return (shared ??= startEncoder());
}

let shared: ChunkEncoder | undefined;

/** Whether this thread's encoder (and so its thread) has been started (for tests). */
export function encoderThreadStarted(): boolean {
  return shared !== undefined;
}

function startEncoder(): ChunkEncoder {
  let worker: Worker | undefined;
  let nextId = 0;
  const pending = new Map<number, { length: number; resolve: () => void; reject: (e: Error) => void; summarized?: Settle<unknown> }>();
  const free: ArrayBuffer[] = [];
  const waiting: (() => void)[] = [];
  let inHand = 0;
  let bytesInHand = 0;
  /** Whether a chunk of `bytes` must wait for a place. */
  const full = (bytes: number) => inHand >= IN_FLIGHT || (inHand > 0 && bytesInHand + bytes > IN_FLIGHT_BYTES);

  const thread = (): Worker => {
    if (worker) return worker;
    const started = startModuleThread(import.meta.url, "chunkEncoderThread", undefined);
    started.on("message", ({ id, buffer, error, summary, summaryError }: EncodeAnswer) => {
      const request = pending.get(id)!;
      pending.delete(id);
      // A chunk from shared memory comes back with no buffer.
      if (buffer && free.length < IN_FLIGHT) free.push(buffer);
      inHand--;
      bytesInHand -= request.length;
      if (pending.size === 0) started.unref(); // idle: let the process exit
      waiting.shift()?.();
      if (summaryError !== undefined) request.summarized?.reject(new Error(summaryError));
      else request.summarized?.resolve(summary);
      if (error) request.reject(chunkWriteFailure(error));
      else request.resolve();
    });
    started.on("error", (e) => {
      // The chunks in hand are lost with the thread: fail their writers and free their places.
      inHand -= pending.size;
      for (const request of pending.values()) {
        bytesInHand -= request.length;
        request.reject(e);
        request.summarized?.reject(e);
      }
      pending.clear();
      for (const wake of waiting.splice(0)) wake();
      worker = undefined;
    });
    started.unref(); // idle until the first write
    worker = started;
    return started;
  };
  thread();

  /** Whether a chunk of `bytes` finds no place, once the encoder's answers that have arrived (messages) are taken in. */
  const behind = async (bytes: number): Promise<boolean> => {
    if (!full(bytes)) return false;
    await new Promise((resolve) => setImmediate(resolve));
    return full(bytes);
  };
  const here = encoderOnThisThread();

  return {
    async put(path, bytes, fill, how) {
      if (await behind(bytes)) return here.put(path, bytes, fill, how);
      const { level, summarize, at } = how;
      while (full(bytes)) await new Promise<void>((resolve) => waiting.push(resolve));
      inHand++;
      bytesInHand += bytes;
      const i = free.findIndex((b) => b.byteLength >= bytes);
      const buffer = i >= 0 ? free.splice(i, 1)[0] : new ArrayBuffer(bytes);
      fill(buffer);
      return post({ id: nextId++, path, buffer, length: bytes, level, summarize, at }, [buffer]);
    },
    async putShared(path, bytes, how) {
      if (await behind(bytes.length)) return here.putShared(path, bytes, how);
      // No place waited for: the caller holds the memory until written, which bounds what is in hand.
      inHand++;
      bytesInHand += bytes.length;
      const { level, summarize, at } = how;
      const shared = { buffer: bytes.buffer, offset: bytes.byteOffset };
      return post({ id: nextId++, path, shared, length: bytes.length, level, summarize, at }, []);
    },
  };

  /** Hand a request (its place taken) to the encoder's thread: when it is written, and its summary when asked. */
  function post(request: EncodeRequest, transfer: ArrayBuffer[]): { written: Promise<void>; summary?: Promise<unknown> } {
    const w = thread();
    w.ref();
    let summarized: Settle<unknown> | undefined;
    const summary = request.summarize && new Promise<unknown>((resolve, reject) => (summarized = { resolve, reject }));
    const written = new Promise<void>((resolve, reject) => {
      pending.set(request.id, { length: request.length, resolve, reject, summarized });
      w.postMessage(request, transfer);
    });
    return { written, summary };
  }
}

interface Settle<T> {
  resolve(value: T): void;
  reject(e: Error): void;
}

/**
 * An encoder that compresses, summarizes and writes each chunk on the calling thread, before
 * put resolves: what the thread encoder does when it is behind, and all a job of one thread
 * uses, so that it keeps to the one core it was given (tasks/common.ts).
 */
export function encoderOnThisThread(): ChunkEncoder {
  /** The buffer chunks are filled in (filled and compressed with no wait between: one serves every chunk). */
  let own: ArrayBuffer | undefined;
  /** What encoding a chunk as `how` says needs, loaded: zstd, and the summary's function. */
  const prepare = async ({ level, summarize }: ChunkPut) => {
    if (level !== null) await loadZstd();
    return summarize && (await chunkSummary(summarize));
  };
  /** The chunk summarized, compressed and written, synchronously (`own` may hold it: nothing else runs meanwhile). */
  const encode = (path: string, chunk: Uint8Array, { level, at }: ChunkPut, summarize: ((bytes: Uint8Array) => unknown) | undefined) => {
    let summary: Promise<unknown> | undefined;
    try {
      summary = summarize && Promise.resolve(summarize(chunk));
    } catch (e) {
      summary = Promise.reject(e as Error);
    }
    try {
      writeChunkFile(path, level === null ? chunk : zstdFrame(chunk, level), at);
      return { written: Promise.resolve(), summary };
    } catch (e) {
      return { written: Promise.reject(chunkWriteFailure(writeErrorCode(e))), summary };
    }
  };
  return {
    async put(path, bytes, fill, how) {
      const summarize = await prepare(how);
      if (!own || own.byteLength < bytes) own = new ArrayBuffer(bytes);
      fill(own);
      return encode(path, new Uint8Array(own, 0, bytes), how, summarize);
    },
    async putShared(path, bytes, how) {
      return encode(path, bytes, how, await prepare(how));
    },
  };
}
