/**
 * Stored chunks read and inflated on a thread of their own, for a reading thread that has
 * computing to do meanwhile: a streamed pass reads one run of chunks ahead, but when the
 * reading thread inflates them itself, they inflate only once it has finished with the run
 * before (inflating was a third of the pass). The fetcher reads each chunk at its place (the
 * reader's descriptor: the reader keeps its file open while a fetch is pending), inflates it
 * into a buffer that travels there and back (transferred, not copied, and reused), and the
 * reading thread applies the rest of the chunk's filters (the unshuffle, into the kernel
 * memory it reads into). It serves the threads that turn it on (fetchChunksAside), one per
 * thread, started on first use.
 */
import type { Worker } from "node:worker_threads";
import { startModuleThread } from "../thread.js";
import type { FetchAnswer, FetchRequest } from "./chunkFetcherThread.js";
import { Hdf5FormatError } from "./source.js";

/** Stored chunks smaller than this are inflated where they are read: a trip to the thread and back costs about as much. */
const FETCH_ASIDE_BYTES = 64 * 1024;

/** An inflated chunk, its bytes the caller's until `release`. */
export interface Fetched {
  readonly bytes: Buffer;
  release(): void;
}

/** Stored chunks at least this big go through the fetcher while it is on (fetchChunksAside); undefined: it is off. */
let minStoredBytes: number | undefined;
let fetcher: ReturnType<typeof startFetcher> | undefined;
let fetched = 0;

/** How many chunks this thread has had fetched aside (for tests). */
export function chunksFetchedAside(): number {
  return fetched;
}

/**
 * Whether this thread's HDF5 reads fetch their chunks (those stored in `minBytes` or more,
 * FETCH_ASIDE_BYTES by default) through the fetcher's thread from now on: a job turns it on
 * for the passes that leave it a thread to spare (tasks/common.ts).
 * @example
 * fetchChunksAside(true); try { ... } finally { fetchChunksAside(false); }
 */
export function fetchChunksAside(on: boolean, minBytes = FETCH_ASIDE_BYTES): void {
  minStoredBytes = on ? minBytes : undefined;
}

/** Reads and inflates a chunk of `size` bytes at `position` of the file `fd` into at most `room` bytes. */
export interface ChunkFetcher {
  fetch(fd: number, position: number, size: number, room: number): Promise<Fetched>;
}

/** The fetcher, when this thread's reads go through it and a chunk stored in `bytes` is worth the trip. */
export function chunkFetcher(bytes: number): ChunkFetcher | undefined {
  if (minStoredBytes === undefined || bytes < minStoredBytes) return undefined;
  return (fetcher ??= startFetcher());
}

function startFetcher(): ChunkFetcher {
  let worker: Worker | undefined;
  let nextId = 0;
  const pending = new Map<number, { resolve: (answer: FetchAnswer) => void; reject: (e: Error) => void }>();
  const free: ArrayBuffer[] = [];

  const thread = (): Worker => {
    if (worker) return worker;
    const started = startModuleThread(import.meta.url, "chunkFetcherThread", undefined);
    started.on("message", (answer: FetchAnswer) => {
      const request = pending.get(answer.id)!;
      pending.delete(answer.id);
      if (pending.size === 0) started.unref();
      request.resolve(answer);
    });
    started.on("error", (e) => {
      for (const request of pending.values()) request.reject(e);
      pending.clear();
      worker = undefined;
    });
    worker = started;
    return started;
  };

  return {
    async fetch(fd: number, position: number, size: number, room: number): Promise<Fetched> {
      const i = free.findIndex((b) => b.byteLength >= room);
      const output = i >= 0 ? free.splice(i, 1)[0] : new ArrayBuffer(room);
      const id = nextId++;
      const w = thread();
      w.ref();
      const answer = await new Promise<FetchAnswer>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        w.postMessage({ id, fd, position, size, output } satisfies FetchRequest, [output]);
      });
      const giveBack = () => void (free.length < 16 && free.push(answer.output));
      if (answer.error !== undefined) {
        giveBack();
        if (answer.corrupt) throw new Hdf5FormatError(answer.error);
        throw new Error(`Reading the file failed: ${answer.error}`);
      }
      fetched++;
      return { bytes: Buffer.from(answer.output, 0, answer.length), release: giveBack };
    },
  };
}
