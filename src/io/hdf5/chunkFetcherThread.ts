/**
 * The chunk fetcher's thread (chunkFetcher.ts): reads a stored chunk at its place in the file
 * (the reading thread's file descriptor; it stays open while a fetch is pending) into a
 * buffer of its own, inflates it into the buffer it was handed, and hands that back.
 */
import { readSync } from "node:fs";
import { parentPort } from "node:worker_threads";
import { ChunkInflater } from "./inflate.js";

export interface FetchRequest {
  readonly id: number;
  readonly fd: number;
  /** Absolute position of the stored chunk in the file, and its stored size. */
  readonly position: number;
  readonly size: number;
  /** Where the chunk inflates: at most its whole length. */
  readonly output: ArrayBuffer;
}

export interface FetchAnswer {
  readonly id: number;
  readonly output: ArrayBuffer;
  /** Bytes inflated into `output`. */
  readonly length: number;
  /** Why there are none: the read's or the inflate's message. */
  readonly error?: string;
  /** Whether the stream itself is bad (the inflate failed), not the read. */
  readonly corrupt?: boolean;
}

const inflater = new ChunkInflater();
let stored = Buffer.allocUnsafeSlow(0);

parentPort!.on("message", ({ id, fd, position, size, output }: FetchRequest) => {
  let length = 0;
  let error: string | undefined;
  let corrupt = false;
  try {
    if (stored.length < size) stored = Buffer.allocUnsafeSlow(size);
    for (let done = 0; done < size;) {
      const n = readSync(fd, stored, done, size - done, position + done);
      if (n === 0) throw new Error(`the file ended while reading ${size} bytes at ${position}`);
      done += n;
    }
    corrupt = true;
    length = inflater.into(stored.subarray(0, size), new Uint8Array(output));
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  parentPort!.postMessage({ id, output, length, error, corrupt: error !== undefined && corrupt } satisfies FetchAnswer, [output]);
});
