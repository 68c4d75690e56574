/**
 * Inflating a chunk on the calling thread into memory the reader owns. node:zlib's public
 * calls return a fresh buffer for every chunk: on a daily cube that is 1461 one-megabyte
 * buffers a pass, whose fresh pages, garbage collection and trips through libuv's pool cost
 * more than the inflate (an anomaly's first pass 0.3-0.5 s of 4.5 s). A zlib handle that
 * node:zlib makes for a stream can inflate synchronously into a given buffer (`writeSync`, how
 * node:zlib's own synchronous calls drive it); it is not a documented call, so it is checked
 * once on a known stream, and where it is missing or misbehaves every chunk goes through
 * `inflateSync` and is copied.
 */
import { constants, createInflate, deflateSync, inflateSync } from "node:zlib";
import { Hdf5FormatError } from "./source.js";

/** What node:zlib's stream holds: its native handle and the two counts the handle reports into. */
interface ZlibHandle {
  reset(): void;
  writeSync(
    flush: number,
    input: Uint8Array,
    inOffset: number,
    inLength: number,
    out: Uint8Array,
    outOffset: number,
    outLength: number,
  ): void;
  close(): void;
  onerror: (message: string, errno: number) => void;
}

/** Inflates whole zlib streams into caller-given memory; one per thread (module state). */
export class ChunkInflater {
  private handle: ZlibHandle | undefined;
  /** [output bytes left, input bytes left] after a write, as the handle reports them. */
  private state: Uint32Array = new Uint32Array(2);
  private failure: string | undefined;
  private scratch = new Uint8Array(0);
  private viaHandle: boolean;

  constructor(options: { direct?: boolean } = {}) {
    this.viaHandle = options.direct !== false && this.openHandle();
    this.viaHandle &&= this.handleWorks();
    if (!this.viaHandle) this.closeHandle();
  }

  /** Whether chunks inflate through the stream's handle (false: inflateSync and a copy). */
  get direct(): boolean {
    return this.viaHandle;
  }

  /**
   * Inflate `src` into the start of `out`; returns the bytes written. A damaged stream, or one
   * holding more than `out` takes, throws Hdf5FormatError.
   * @example
   * const n = inflater.into(stored, new Uint8Array(chunkBytes + 1024));
   */
  into(src: Uint8Array, out: Uint8Array): number {
    if (!this.viaHandle || (!this.handle && !this.openHandle())) return this.viaCopy(src, out);
    this.failure = undefined;
    this.handle!.reset();
    this.handle!.writeSync(constants.Z_FINISH, src, 0, src.length, out, 0, out.length);
    if (this.failure !== undefined) {
      // A handle that failed is not trusted again: the next chunk gets a fresh one.
      this.closeHandle();
      throw new Hdf5FormatError(`a chunk does not inflate: ${this.failure}`);
    }
    if (this.state[0] === 0) throw tooLong(out.length);
    return out.length - this.state[0];
  }

  /**
   * Inflate `src` into this inflater's own buffer, at least `room` bytes: the view returned
   * holds the chunk until the next call, for a step that copies it out at once (the unshuffle).
   * @example
   * const inflated = inflater.scratchFor(stored, chunkBytes + 1024);
   */
  scratchFor(src: Uint8Array, room: number): Uint8Array {
    if (this.scratch.length < room) this.scratch = new Uint8Array(room);
    return this.scratch.subarray(0, this.into(src, this.scratch.subarray(0, room)));
  }

  private viaCopy(src: Uint8Array, out: Uint8Array): number {
    let inflated: Buffer;
    try {
      // Bounded: a crafted chunk must not inflate to more than the room it was given.
      inflated = inflateSync(src, { chunkSize: out.length, maxOutputLength: out.length });
    } catch (e) {
      if ((e as { code?: unknown }).code === "ERR_BUFFER_TOO_LARGE") throw tooLong(out.length);
      throw new Hdf5FormatError(`a chunk does not inflate: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (inflated.length >= out.length) throw tooLong(out.length);
    out.set(inflated);
    return inflated.length;
  }

  private openHandle(): boolean {
    const stream = createInflate() as unknown as { _handle?: Partial<ZlibHandle>; _writeState?: unknown };
    const handle = stream._handle;
    const state = stream._writeState;
    if (
      typeof handle?.writeSync !== "function" ||
      typeof handle.reset !== "function" ||
      !(state instanceof Uint32Array) ||
      state.length < 2
    ) {
      return false;
    }
    // Errors come here instead of the stream's handler, which would destroy the stream.
    handle.onerror = (message) => void (this.failure = message);
    this.handle = handle as ZlibHandle;
    this.state = state;
    return true;
  }

  private closeHandle(): void {
    this.handle?.close();
    this.handle = undefined;
  }

  /** The handle inflates a known stream, whole and truncated, as node:zlib documents for inflateSync. */
  private handleWorks(): boolean {
    try {
      const known = Uint8Array.from({ length: 4096 }, (_, i) => (i * 7) & 0xff);
      const stream = deflateSync(known);
      const out = new Uint8Array(known.length + 16);
      if (this.into(stream, out) !== known.length || !out.subarray(0, known.length).every((b, i) => b === known[i])) return false;
      try {
        this.into(stream.subarray(0, stream.length - 8), out);
        return false;
      } catch (e) {
        if (!(e instanceof Hdf5FormatError)) return false;
      }
      return this.into(stream, out) === known.length;
    } catch {
      return false;
    }
  }
}

function tooLong(room: number): Hdf5FormatError {
  return new Hdf5FormatError(`a chunk does not inflate: it holds more than ${room} bytes`);
}

let threadInflater: ChunkInflater | undefined;

/** This thread's inflater, made on first use. */
export function chunkInflater(): ChunkInflater {
  threadInflater ??= new ChunkInflater();
  return threadInflater;
}
