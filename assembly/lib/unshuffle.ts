/**
 * HDF5's shuffle filter undone: byte k of element i is at src + k·n + i; dst gets the n
 * elements side by side, or, given rows > 0, with the rows (runs of `columns` elements) of
 * each plane of `rows` rows last to first (a south-up grid read north-up). Elements of 2 and
 * 4 bytes go sixteen at a time (SIMD byte interleaves); any other size, and the last few of a
 * row, byte by byte.
 */
export function unshuffle(src: usize, dst: usize, n: i32, size: i32, columns: i32, rows: i32): void {
  if (rows <= 0 || columns <= 0) {
    unshuffleRange(src, dst, <usize>n, <usize>size, 0, <usize>n, 0);
    return;
  }
  const planeRows = <usize>rows;
  const width = <usize>columns;
  const count = <usize>n;
  const allRows = count / width;
  for (let r: usize = 0; r < allRows; r++) {
    const plane = r / planeRows;
    const target = plane * planeRows + (planeRows - 1 - (r - plane * planeRows));
    unshuffleRange(src, dst, count, <usize>size, r * width, width, target * width);
  }
}

/** Elements [from, from + length) of the n shuffled ones in src, to dst's elements from `to` on. */
function unshuffleRange(src: usize, dst: usize, n: usize, size: usize, from: usize, length: usize, to: usize): void {
  const end = from + length;
  let i = from;
  let o = dst + to * size;
  if (size == 4) {
    for (; i + 16 <= end; i += 16, o += 64) {
      const a = v128.load(src + i);
      const b = v128.load(src + n + i);
      const c = v128.load(src + 2 * n + i);
      const d = v128.load(src + 3 * n + i);
      const abLo = i8x16.shuffle(a, b, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
      const abHi = i8x16.shuffle(a, b, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
      const cdLo = i8x16.shuffle(c, d, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
      const cdHi = i8x16.shuffle(c, d, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
      v128.store(o, i8x16.shuffle(abLo, cdLo, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23));
      v128.store(o + 16, i8x16.shuffle(abLo, cdLo, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31));
      v128.store(o + 32, i8x16.shuffle(abHi, cdHi, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23));
      v128.store(o + 48, i8x16.shuffle(abHi, cdHi, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31));
    }
  } else if (size == 2) {
    for (; i + 16 <= end; i += 16, o += 32) {
      const a = v128.load(src + i);
      const b = v128.load(src + n + i);
      v128.store(o, i8x16.shuffle(a, b, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23));
      v128.store(o + 16, i8x16.shuffle(a, b, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31));
    }
  }
  for (; i < end; i++, o += size) {
    for (let k: usize = 0; k < size; k++) store<u8>(o + k, load<u8>(src + k * n + i));
  }
}
