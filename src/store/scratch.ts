/**
 * A job's scratch space: named blobs one pass of a walk leaves for the next (a share's
 * accumulators, their merge; an input transposed into time-whole tiles, written by several
 * shares at once in disjoint byte ranges, hence the positional reads and writes). It lives
 * inside the job's pending dataset, so whatever removes an uncommitted dataset (abort, the
 * sweep at start) removes it too; `remove` drops it before the dataset is committed.
 * Reads and writes go through libuv's pool, or, for a job of one thread, are made on the
 * job's thread, which keeps it to the one core it was given (tasks/common.ts).
 */
import { constants, readFileSync, readSync, writeSync } from "node:fs";
import { type FileHandle, mkdir, open, readFile, rm } from "node:fs/promises";
import { join } from "node:path";

export interface Scratch {
  /** The bytes of `name` (a view of what was read, not a copy). */
  read(name: string): Promise<Uint8Array>;
  /** Write typed arrays end to end as `name`, straight from their memory (no packed copy). */
  writeArrays(name: string, arrays: readonly ArrayBufferView[]): Promise<void>;
  /** Fill typed arrays end to end from `name`, which must hold exactly their bytes. */
  readArrays(name: string, arrays: readonly ArrayBufferView[]): Promise<void>;
  /** `name` held open for many positional reads, and writes unless "read" (then it must exist; else it is created if need be, never truncated). */
  openAt(name: string, access: "read" | "write"): Promise<ScratchFile>;
  remove(): Promise<void>;
}

/** A scratch file held open: one open and close for all of a pass's writes to it, not one each. Arrays are read and written as their bytes, in place. */
export interface ScratchFile {
  writeAt(array: ArrayBufferView, position: number): Promise<void>;
  readAt(into: ArrayBufferView, position: number): Promise<void>;
  close(): Promise<void>;
}

const NAME = /^[A-Za-z0-9_.-]{1,100}$/;

/**
 * @example
 * const scratch = scratchIn(pending.path);
 * await scratch.writeArrays("u0-s1", sums.views());
 */
export function scratchIn(datasetPath: string, { onThisThread = false }: { onThisThread?: boolean } = {}): Scratch {
  const dir = join(datasetPath, "strata-scratch");
  const at = (name: string): string => {
    if (!NAME.test(name)) throw new RangeError(`scratch name ${JSON.stringify(name)} is not a plain file name`);
    return join(dir, name);
  };
  /** The directory, made once (a mkdir per write cost a trip through libuv's pool each). */
  let made: Promise<unknown> | undefined;
  const madeDir = () => (made ??= mkdir(dir, { recursive: true }));
  return {
    async read(name) {
      const bytes = onThisThread ? readFileSync(at(name)) : await readFile(at(name));
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    },
    async writeArrays(name, arrays) {
      await madeDir();
      const file = await open(at(name), "w", 0o600);
      try {
        for (const a of arrays) await writeWhole(file, bytesOf(a), -1, onThisThread);
      } finally {
        await file.close();
      }
    },
    async readArrays(name, arrays) {
      const file = await open(at(name), "r");
      try {
        const expected = arrays.reduce((n, a) => n + a.byteLength, 0);
        const { size } = await file.stat();
        if (size !== expected) throw new RangeError(`scratch ${name} holds ${size} bytes where ${expected} were expected`);
        let position = 0;
        for (const a of arrays) {
          await readWhole(file, bytesOf(a), position, name, onThisThread);
          position += a.byteLength;
        }
      } finally {
        await file.close();
      }
    },
    async openAt(name, access) {
      if (access === "read") return opened(name, await open(at(name), "r"), onThisThread);
      await madeDir();
      // No O_TRUNC: other shares write other ranges of the same file meanwhile.
      return opened(name, await open(at(name), constants.O_RDWR | constants.O_CREAT, 0o600), onThisThread);
    },
    remove: () => {
      made = undefined;
      return rm(dir, { recursive: true, force: true });
    },
  };
}

function opened(name: string, file: FileHandle, onThisThread: boolean): ScratchFile {
  return {
    writeAt: (array, position) => writeWhole(file, bytesOf(array), position, onThisThread),
    readAt: (into, position) => readWhole(file, bytesOf(into), position, name, onThisThread),
    close: () => file.close(),
  };
}

const bytesOf = (a: ArrayBufferView): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/**
 * Bytes per write call, at most: Linux 6.18's ext4 fills a new file's page cache ten times
 * slower from writes of 8 MB than of 1-2 MB (io/chunkFile.ts), and a share's accumulators
 * are tens of megabytes.
 */
const WRITE_PIECE = 1024 * 1024;

/** Write all of `bytes` at `position` (-1: where the file's position is), on this thread or libuv's pool. */
async function writeWhole(file: FileHandle, bytes: Uint8Array, position: number, onThisThread: boolean): Promise<void> {
  for (let done = 0; done < bytes.byteLength;) {
    const length = Math.min(WRITE_PIECE, bytes.byteLength - done);
    const at = position < 0 ? null : position + done;
    done += onThisThread ? writeSync(file.fd, bytes, done, length, at) : (await file.write(bytes, done, length, at)).bytesWritten;
  }
}

async function readWhole(file: FileHandle, into: Uint8Array, position: number, name: string, onThisThread: boolean): Promise<void> {
  for (let done = 0; done < into.byteLength;) {
    const length = into.byteLength - done;
    const bytesRead = onThisThread
      ? readSync(file.fd, into, done, length, position + done)
      : (await file.read(into, done, length, position + done)).bytesRead;
    if (bytesRead === 0) throw new RangeError(`scratch ${name} ends before byte ${position + into.byteLength}`);
    done += bytesRead;
  }
}
