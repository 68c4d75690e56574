/**
 * Positional reads over an open HDF5 file and a cursor that decodes its little-endian
 * fields. Addresses are relative to the superblock's base address; sizes of offsets and
 * lengths come from the superblock. Files stay below 2^53 bytes, so addresses are numbers.
 */
import type { FileHandle } from "node:fs/promises";
import { CorruptDataError, UnsupportedDataError } from "../../cube/errors.js";

/** The "undefined address" (all bits set), decoded. */
export const UNDEFINED_ADDRESS = -1;

/** A structure the reader does not handle: the caller falls back to another reader. */
export class Hdf5UnsupportedError extends UnsupportedDataError {}

/** A structure that contradicts the format: the file is damaged or not HDF5. */
export class Hdf5FormatError extends CorruptDataError {}

export class Hdf5Source {
  offsetSize = 8;
  lengthSize = 8;
  baseAddress = 0;

  /** Reads on other threads through this file's descriptor (chunkFetcher.ts), which close waits for. */
  private readonly aside = new Set<Promise<unknown>>();
  /** Closing or closed: the descriptor may not be handed to another thread (it may be reused once closed). */
  private closing = false;

  constructor(
    private readonly handle: FileHandle,
    readonly fileSize: number,
  ) {}

  /**
   * `read(fd, position)` of `length` bytes at `address` on another thread, given this file's
   * descriptor and the absolute position; the file stays open until it settles.
   */
  async readAside<T>(address: number, length: number, read: (fd: number, position: number) => Promise<T>): Promise<T> {
    const position = this.baseAddress + address;
    if (address < 0 || length < 0 || position + length > this.fileSize) {
      throw new Hdf5FormatError(`HDF5 data at ${address} (+${length} bytes) lies outside the file`);
    }
    if (this.closing) throw new Error("The file was closed while it was being read.");
    const reading = read(this.handle.fd, position);
    this.aside.add(reading);
    try {
      return await reading;
    } finally {
      this.aside.delete(reading);
    }
  }

  /** Close the file once no read on another thread uses it. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.allSettled([...this.aside]);
    await this.handle.close();
  }

  /** Exactly `length` bytes at `address` (relative to the base address). */
  async bytes(address: number, length: number): Promise<Buffer> {
    if (length < 0) throw new Hdf5FormatError(`HDF5 structure at ${address} has a negative size`);
    // Checked before allocating: a damaged size must not ask for more memory than the file has.
    if (address < 0 || this.baseAddress + address + length > this.fileSize) {
      throw new Hdf5FormatError(`HDF5 data at ${address} (+${length} bytes) lies outside the file`);
    }
    const buffer = Buffer.allocUnsafe(length);
    await this.readInto(buffer, address);
    return buffer;
  }

  /** Fill `into` from `address` (relative to the base address). */
  async readInto(into: Uint8Array, address: number): Promise<void> {
    const position = this.baseAddress + address;
    if (address < 0 || position + into.length > this.fileSize) {
      throw new Hdf5FormatError(`HDF5 data at ${address} (+${into.length} bytes) lies outside the file`);
    }
    let done = 0;
    while (done < into.length) {
      const { bytesRead } = await this.handle.read(into, done, into.length - done, position + done);
      if (bytesRead === 0) throw new Hdf5FormatError(`HDF5 file ended while reading ${into.length} bytes at ${address}`);
      done += bytesRead;
    }
  }

  /** Up to `length` bytes at `address`, fewer where the file ends first. */
  async bytesUpTo(address: number, length: number): Promise<Buffer> {
    return this.bytes(address, Math.max(0, Math.min(length, this.fileSize - this.baseAddress - address)));
  }

  /** A cursor over `length` bytes at `address`. */
  async cursor(address: number, length: number): Promise<Cursor> {
    return new Cursor(await this.bytes(address, length), this);
  }
}

/** Sequential little-endian decoding of one structure read into memory. */
export class Cursor {
  pos = 0;

  constructor(
    readonly buf: Buffer,
    readonly sizes: { offsetSize: number; lengthSize: number },
  ) {}

  get remaining(): number {
    return this.buf.length - this.pos;
  }

  private need(n: number): number {
    if (this.pos + n > this.buf.length) throw new Hdf5FormatError("HDF5 structure is truncated");
    const at = this.pos;
    this.pos += n;
    return at;
  }

  u8(): number {
    return this.buf[this.need(1)];
  }

  u16(): number {
    return this.buf.readUInt16LE(this.need(2));
  }

  u32(): number {
    return this.buf.readUInt32LE(this.need(4));
  }

  /** An unsigned little-endian integer of 1 to 8 bytes. */
  uint(size: number): number {
    const at = this.need(size);
    let value = 0;
    for (let i = size - 1; i >= 0; i--) value = value * 256 + this.buf[at + i];
    if (value > Number.MAX_SAFE_INTEGER) throw new Hdf5UnsupportedError("HDF5 value beyond 2^53");
    return value;
  }

  u64(): number {
    return this.uint(8);
  }

  /** A file address; all ones ("undefined address") decodes as UNDEFINED_ADDRESS. */
  offset(): number {
    return this.allOnes(this.sizes.offsetSize) ? UNDEFINED_ADDRESS : this.uint(this.sizes.offsetSize);
  }

  length(): number {
    return this.uint(this.sizes.lengthSize);
  }

  /** A length where all ones means unlimited (a dataspace's maximum size): Infinity. */
  maxLength(): number {
    return this.allOnes(this.sizes.lengthSize) ? Infinity : this.uint(this.sizes.lengthSize);
  }

  /** Whether the next `size` bytes are all ones, consuming them if so. */
  private allOnes(size: number): boolean {
    const at = this.need(size);
    for (let i = 0; i < size; i++) {
      if (this.buf[at + i] !== 0xff) {
        this.pos = at;
        return false;
      }
    }
    return true;
  }

  bytes(n: number): Buffer {
    const at = this.need(n);
    return this.buf.subarray(at, at + n);
  }

  skip(n: number): void {
    this.need(n);
  }

  /** Check a 4-byte signature such as "OHDR". */
  signature(expected: string): void {
    const got = this.bytes(4).toString("latin1");
    if (got !== expected) throw new Hdf5FormatError(`expected HDF5 ${expected} signature, found ${JSON.stringify(got)}`);
  }
}

/** Bytes needed to store values below 2^bits, as HDF5 sizes its variable-width fields. */
export function bytesForBits(bits: number): number {
  return Math.ceil(bits / 8);
}
