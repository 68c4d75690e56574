/**
 * Object headers, version 1 (8-byte aligned messages, bare continuation blocks) and
 * version 2 ("OHDR" with "OCHK" continuation blocks), reduced to their list of messages.
 * Checksums are not verified: every structure read after is bounds-checked anyway.
 */
import { Cursor, Hdf5FormatError, Hdf5Source, Hdf5UnsupportedError } from "./source.js";

export const MessageType = {
  dataspace: 0x0001,
  linkInfo: 0x0002,
  datatype: 0x0003,
  fillValueOld: 0x0004,
  fillValue: 0x0005,
  link: 0x0006,
  externalFiles: 0x0007,
  layout: 0x0008,
  filterPipeline: 0x000b,
  continuation: 0x0010,
  symbolTable: 0x0011,
} as const;

export interface HeaderMessage {
  readonly type: number;
  readonly flags: number;
  readonly data: Buffer;
}

/** Bit of a message's flags: the message is stored elsewhere and this is a reference. */
const SHARED_MESSAGE = 0x02;
/** An object header with more continuation blocks than this is taken as a loop. */
const MAX_BLOCKS = 10_000;

export async function readObjectHeader(source: Hdf5Source, address: number): Promise<HeaderMessage[]> {
  const head = await source.bytesUpTo(address, 64);
  const messages: HeaderMessage[] = [];
  const pending: { address: number; length: number }[] = [];
  let v2: { creationOrder: boolean } | undefined;
  if (head.length >= 4 && head.toString("latin1", 0, 4) === "OHDR") {
    const c = new Cursor(head, source);
    c.skip(4);
    const version = c.u8();
    if (version !== 2) throw new Hdf5FormatError(`object header version ${version} at ${address}`);
    const flags = c.u8();
    if (flags & 0x20) c.skip(16); // access, modification, change and birth times
    if (flags & 0x10) c.skip(4); // attribute phase change values
    const chunk0Size = c.uint(1 << (flags & 0x03));
    v2 = { creationOrder: (flags & 0x04) !== 0 };
    const block = await source.bytes(address + c.pos, chunk0Size);
    parseV2Messages(block, v2.creationOrder);
  } else if (head.length >= 16 && head[0] === 1) {
    const c = new Cursor(head, source);
    c.skip(4); // version, reserved, number of messages
    c.skip(4); // reference count
    const size = c.u32();
    parseV1Messages(await source.bytes(address + 16, size));
  } else {
    throw new Hdf5FormatError(`no object header at ${address}`);
  }
  for (let blocks = 0; pending.length > 0; blocks++) {
    if (blocks > MAX_BLOCKS) throw new Hdf5FormatError(`object header at ${address} has too many continuation blocks`);
    const next = pending.shift()!;
    const block = await source.bytes(next.address, next.length);
    if (v2) {
      if (block.toString("latin1", 0, 4) !== "OCHK") throw new Hdf5FormatError(`expected an OCHK block at ${next.address}`);
      parseV2Messages(block.subarray(4, block.length - 4), v2.creationOrder);
    } else {
      parseV1Messages(block);
    }
  }
  return messages;

  function push(type: number, flags: number, data: Buffer): void {
    if (type === MessageType.continuation) {
      const c = new Cursor(data, source);
      pending.push({ address: c.offset(), length: c.length() });
    } else if (type !== 0) {
      messages.push({ type, flags, data });
    }
  }

  function parseV1Messages(block: Buffer): void {
    const c = new Cursor(block, source);
    while (c.remaining >= 8) {
      const type = c.u16();
      const size = c.u16();
      const flags = c.u8();
      c.skip(3);
      push(type, flags, c.bytes(size));
    }
  }

  function parseV2Messages(block: Buffer, creationOrder: boolean): void {
    const c = new Cursor(block, source);
    const headerSize = creationOrder ? 6 : 4;
    // Whatever remains after the last message that cannot hold a header is a gap.
    while (c.remaining >= headerSize) {
      const type = c.u8();
      const size = c.u16();
      const flags = c.u8();
      if (creationOrder) c.skip(2);
      push(type, flags, c.bytes(size));
    }
  }
}

/** The one message of a type, rejecting a shared (stored elsewhere) one. */
export function findMessage(messages: readonly HeaderMessage[], type: number): HeaderMessage | undefined {
  const message = messages.find((m) => m.type === type);
  if (message && message.flags & SHARED_MESSAGE) {
    throw new Hdf5UnsupportedError(`shared HDF5 header message of type ${type}`);
  }
  return message;
}
