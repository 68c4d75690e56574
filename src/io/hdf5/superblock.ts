/**
 * The superblock: where the HDF5 signature sits (0, 512, 1024, ... for files with a user
 * block), the sizes of offsets and lengths, the base address and the root group's object
 * header. Versions 0 and 1 (symbol-table era) and 2 and 3 (HDF5 1.8+).
 */
import { Cursor, Hdf5FormatError, Hdf5Source, Hdf5UnsupportedError } from "./source.js";

const SIGNATURE = Buffer.from([0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface Superblock {
  readonly version: number;
  readonly rootObjectHeader: number;
}

/** Find and decode the superblock; sets the source's sizes and base address. */
export async function readSuperblock(source: Hdf5Source): Promise<Superblock> {
  for (let at = 0; at + SIGNATURE.length <= source.fileSize; at = at === 0 ? 512 : at * 2) {
    const head = await source.bytesUpTo(at, 128);
    if (head.length < SIGNATURE.length || !head.subarray(0, 8).equals(SIGNATURE)) continue;
    return decode(source, head, at);
  }
  throw new Hdf5FormatError("no HDF5 signature: not an HDF5 file");
}

function decode(source: Hdf5Source, head: Buffer, signatureAt: number): Superblock {
  const c = new Cursor(head, { offsetSize: 8, lengthSize: 8 });
  c.skip(8);
  const version = c.u8();
  let offsetSize: number;
  let lengthSize: number;
  if (version === 0 || version === 1) {
    c.skip(3); // free-space, root symbol table entry and shared header versions
    c.skip(1);
    offsetSize = c.u8();
    lengthSize = c.u8();
    c.skip(1);
    c.skip(4); // group leaf and internal node K
    c.skip(4); // file consistency flags
    if (version === 1) c.skip(4); // indexed storage K and reserved
  } else if (version === 2 || version === 3) {
    offsetSize = c.u8();
    lengthSize = c.u8();
    c.skip(1); // file consistency flags
  } else {
    throw new Hdf5UnsupportedError(`HDF5 superblock version ${version}`);
  }
  if (![2, 4, 8].includes(offsetSize) || ![2, 4, 8].includes(lengthSize)) {
    throw new Hdf5FormatError(`HDF5 superblock gives ${offsetSize}-byte offsets and ${lengthSize}-byte lengths`);
  }
  const sized = new Cursor(head.subarray(c.pos), { offsetSize, lengthSize });
  sized.offset(); // base address: HDF5 itself takes the signature's position instead
  let root: number;
  if (version <= 1) {
    sized.offset(); // free-space info
    sized.offset(); // end of file
    sized.offset(); // driver info
    sized.offset(); // root entry: link name offset
    root = sized.offset();
  } else {
    sized.offset(); // superblock extension
    sized.offset(); // end of file
    root = sized.offset();
  }
  source.offsetSize = offsetSize;
  source.lengthSize = lengthSize;
  source.baseAddress = signatureAt;
  return { version, rootObjectHeader: root };
}
