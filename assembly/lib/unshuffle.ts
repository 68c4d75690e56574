/**
 * HDF5's shuffle filter undone: byte k of element i is at src + k·n + i; dst gets the n
 * elements side by side. Elements of 2 and 4 bytes go sixteen at a time (SIMD byte
 * interleaves); any other size, and the last few, byte by byte.
 */
export function unshuffle(src: usize, dst: usize, n: i32, size: i32): void {
  const count = <usize>n;
  const width = <usize>size;
  let i: usize = 0;
  if (size == 4) {
    for (; i + 16 <= count; i += 16) {
      const a = v128.load(src + i);
      const b = v128.load(src + count + i);
      const c = v128.load(src + 2 * count + i);
      const d = v128.load(src + 3 * count + i);
      const abLo = i8x16.shuffle(a, b, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
      const abHi = i8x16.shuffle(a, b, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
      const cdLo = i8x16.shuffle(c, d, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
      const cdHi = i8x16.shuffle(c, d, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
      const o = dst + (i << 2);
      v128.store(o, i8x16.shuffle(abLo, cdLo, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23));
      v128.store(o + 16, i8x16.shuffle(abLo, cdLo, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31));
      v128.store(o + 32, i8x16.shuffle(abHi, cdHi, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23));
      v128.store(o + 48, i8x16.shuffle(abHi, cdHi, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31));
    }
  } else if (size == 2) {
    for (; i + 16 <= count; i += 16) {
      const a = v128.load(src + i);
      const b = v128.load(src + count + i);
      const o = dst + (i << 1);
      v128.store(o, i8x16.shuffle(a, b, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23));
      v128.store(o + 16, i8x16.shuffle(a, b, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31));
    }
  }
  for (; i < count; i++) {
    for (let k: usize = 0; k < width; k++) store<u8>(dst + i * width + k, load<u8>(src + k * count + i));
  }
}
