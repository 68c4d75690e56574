/**
 * Finding an object by path ("grp1/T") through the three kinds of group storage: symbol
 * tables (v1 B-tree of SNOD nodes naming entries in a local heap), compact link messages in
 * the group's header, and dense links (a fractal heap indexed by a v2 B-tree of name hashes).
 */
import { groupNodes } from "./btree1.js";
import { eachRecord } from "./btree2.js";
import { FractalHeap } from "./fractalHeap.js";
import { type Link, decodeLink, decodeLinkInfo, decodeSymbolTable } from "./messages.js";
import { type HeaderMessage, MessageType, findMessage, readObjectHeader } from "./objectHeader.js";
import { Hdf5FormatError, Hdf5Source, Hdf5UnsupportedError } from "./source.js";

/** Object header address of the object at `path` below the root group, or undefined if absent. */
export async function resolvePath(source: Hdf5Source, root: number, path: string): Promise<number | undefined> {
  let address = root;
  for (const name of path.split("/").filter((part) => part !== "")) {
    const link = await findLink(source, await readObjectHeader(source, address), name);
    if (!link) return undefined;
    if (link.kind !== "hard") throw new Hdf5UnsupportedError(`${path} goes through a ${link.kind} link`);
    address = link.address;
  }
  return address;
}

async function findLink(source: Hdf5Source, group: readonly HeaderMessage[], name: string): Promise<Link | undefined> {
  const symbolTable = findMessage(group, MessageType.symbolTable);
  if (symbolTable) return findInSymbolTable(source, symbolTable.data, name);
  for (const message of group) {
    if (message.type !== MessageType.link) continue;
    const link = decodeLink(message.data, source);
    if (link.name === name) return link;
  }
  const info = findMessage(group, MessageType.linkInfo);
  if (!info) return undefined;
  const { fractalHeap, nameIndex } = decodeLinkInfo(info.data, source);
  if (fractalHeap < 0 || nameIndex < 0) return undefined;
  const heap = await FractalHeap.open(source, fractalHeap);
  const ids: Buffer[] = [];
  const type = await eachRecord(source, nameIndex, (record) => {
    record.skip(4); // the name's hash
    ids.push(record.bytes(record.remaining));
  });
  if (ids.length > 0 && type !== 5) throw new Hdf5FormatError(`a group's name index is a v2 B-tree of type ${type}`);
  for (const id of ids) {
    const link = decodeLink(await heap.object(id), source);
    if (link.name === name) return link;
  }
  return undefined;
}

async function findInSymbolTable(source: Hdf5Source, message: Buffer, name: string): Promise<Link | undefined> {
  const { btree, localHeap } = decodeSymbolTable(message, source);
  const heap = await source.cursor(localHeap, 8 + 2 * source.lengthSize + source.offsetSize);
  heap.signature("HEAP");
  heap.skip(4);
  const dataSize = heap.length();
  heap.length(); // free list
  const names = await source.bytes(heap.offset(), dataSize);
  const entrySize = 2 * source.offsetSize + 24;
  for (const node of await groupNodes(source, btree)) {
    const head = await source.cursor(node, 8);
    head.signature("SNOD");
    head.skip(2);
    const count = head.u16();
    const entries = await source.cursor(node + 8, count * entrySize);
    for (let i = 0; i < count; i++) {
      const nameOffset = entries.offset();
      const address = entries.offset();
      entries.skip(24);
      const end = names.indexOf(0, nameOffset);
      if (nameOffset < 0 || end < 0) throw new Hdf5FormatError("symbol table entry names nothing in its local heap");
      if (names.toString("utf8", nameOffset, end) !== name) continue;
      return address < 0 ? { name, kind: "soft" } : { name, kind: "hard", address };
    }
  }
  return undefined;
}
