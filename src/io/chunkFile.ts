/**
 * Writing one output chunk's file, on whichever thread has it encoded: the chunk encoder's
 * (io/chunkEncoderThread.ts), or the job's own when that thread is behind (io/chunkEncoder.ts).
 */
import { closeSync, constants, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Bytes per write call, at most. Linux 6.18's ext4 made a new file's page cache ten times
 * slower from one 8 MB write than from 1-2 MB writes (1.5 GB in 188 files: 3.2 s of system
 * time against 0.32 s), and a raw output's chunk may hold a run of 8 MB.
 */
const WRITE_PIECE = 1024 * 1024;

/**
 * Write `bytes` as the file at `path`, or with `at` into it from that byte on (made when
 * missing, never truncated: a kept block's chunks share a file, written in any order, and a
 * kept block made a chunk's file is written over in place), making its directory when missing.
 */
export function writeChunkFile(path: string, bytes: Uint8Array, at?: number): void {
  const write = () => {
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | (at === undefined ? constants.O_TRUNC : 0));
    try {
      for (let done = 0; done < bytes.length;) {
        done += writeSync(fd, bytes, done, Math.min(WRITE_PIECE, bytes.length - done), (at ?? 0) + done);
      }
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
