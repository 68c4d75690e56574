/**
 * How often a walk reads each stored chunk its window meets, from how it cuts the window:
 * pieces (tiles or bands) each read every chunk they meet, and the walk takes one index of
 * each dimension but time at a time, so a chunk spanning several is read once for each.
 * Knows the cube model only.
 */
import { STD_TIME, type Variable, type Window } from "../cube/types.js";

/**
 * Reads of a chunk, on average over the chunks the window meets (1: each read once).
 * @example
 * readsPerChunk(v, { x: 0, y: 0, width: 720, height: 360 }, { height: 60, width: 60 }); // 1 for chunks of [365, 60, 60]
 */
export function readsPerChunk(v: Variable, window: Window, piece: { readonly height: number; readonly width: number }): number {
  const [cy, cx] = v.chunkShape.length >= 2 ? v.chunkShape.slice(-2) : [window.height, window.width];
  const others = v.dimensions.reduce(
    (n, d, i) => (d.name === STD_TIME ? n : n * Math.min(d.values.length, Math.max(1, v.chunkShape[i] ?? d.values.length))),
    1,
  );
  return axisReads(window.y, window.height, piece.height, cy) * axisReads(window.x, window.width, piece.width, cx) * others;
}

/** Along one axis: the chunks each piece meets, summed, over the chunks the whole extent meets. */
function axisReads(start: number, length: number, piece: number, chunk: number): number {
  const c = Math.max(1, chunk);
  const met = (from: number, to: number) => Math.floor((to - 1) / c) - Math.floor(from / c) + 1;
  let reads = 0;
  for (let at = start; at < start + length; at += Math.max(1, piece)) reads += met(at, Math.min(start + length, at + piece));
  return reads / met(start, start + length);
}
