/**
 * Writing one output chunk's file, on whichever thread has it encoded: the chunk encoder's
 * (io/chunkEncoderThread.ts), or the job's own when that thread is behind (io/chunkEncoder.ts).
 */
import { closeSync, constants, mkdirSync, openSync, writeFileSync, writeSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Write `bytes` as the file at `path`, or with `at` into it from that byte on (made when
 * missing, never truncated: a kept block's chunks share a file, written in any order), making
 * its directory when missing.
 */
export function writeChunkFile(path: string, bytes: Uint8Array, at?: number): void {
  const write = () => {
    if (at === undefined) return writeFileSync(path, bytes);
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT);
    try {
      for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done, at + done);
    } finally {
      closeSync(fd);
    }
  };
  try {
    write();
  } catch (e) {
    // A directory made by its first chunk, here: chunks kept between passes (io/zarrChunks.ts
    // keep), and keys separated by "/", which nest chunks in directories (Strata's own
    // outputs separate by ".").
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    mkdirSync(dirname(path), { recursive: true });
    write();
  }
}

/** What a failed write is reported as: `code`, an fs error code such as ENOSPC (never a path). */
export function chunkWriteFailure(code: string): Error {
  return new Error(`an output chunk could not be written (${code})`);
}

/** The fs error code of a failed write, or a generic reason. */
export function writeErrorCode(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? "the encoder failed";
}
