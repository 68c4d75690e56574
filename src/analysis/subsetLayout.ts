/**
 * How Subset walks one variable, from how it is stored. Stored a time step per chunk (or
 * not chunked along time), a slice at a time, each output chunk a slice by a tile
 * (sliceChunk). Stored many time steps per chunk, a slice at a time would decode each chunk
 * once for every slice it holds (a year a chunk: 365 times, 72 × `cdo selyear` on the bench's
 * cube): then tiles of whole stored chunks, each read through the kept steps of one stored
 * chunk along time at once, so that each chunk is decoded once, and those tiles are the
 * output's chunks. Knows the cube model only.
 */
import { PIXEL_ARRAYS, STD_TIME, type Variable, type Window } from "../cube/types.js";
import { sliceChunk } from "./tiles.js";

/**
 * Values one read of a tile through a stored chunk's time steps may hold, at most, on a job's
 * one thread (threads split it). On the bench's cube stored 365 × 60 × 60 a chunk, a year's
 * Subset on 1 thread: 12.9 s and 226 MB above rest with 32 MB (tiles of 120 × 180); 19.8 s
 * and 149 MB with 16 MB (60 × 180, twice the output's files); on 2 threads (16 MB each) 13.9
 * s and 255 MB, with 32 MB each 7.8 s but 377 MB.
 */
export const SUBSET_RUN_BYTES = 32 * 1024 * 1024;

export interface SubsetLayout {
  /** Rows and columns of the walk's tiles and of the output's chunks. */
  readonly height: number;
  readonly width: number;
  /** Time steps per stored chunk when the kept steps of one chunk are read at once; absent: a slice at a time. */
  readonly timeChunk?: number;
}

/**
 * @example
 * subsetLayout(v, { x: 0, y: 0, width: 720, height: 360 }, 512); // { height: 120, width: 180, timeChunk: 365 } for 365 × 60 × 60 float32 chunks
 */
export function subsetLayout(v: Variable, window: Window, tile: number, budgetBytes = SUBSET_RUN_BYTES): SubsetLayout {
  const bySlice = sliceChunk(window, tile);
  const t = v.dimensions.findIndex((d) => d.name === STD_TIME);
  const timeChunk = t < 0 ? 1 : Math.min(v.chunkShape[t], v.dimensions[t].values.length);
  const [chunkRows, chunkColumns] = v.chunkShape.slice(-2);
  const bytes = timeChunk * new PIXEL_ARRAYS[v.pixelType](0).BYTES_PER_ELEMENT;
  // NetCDF-3's fixed-size variables report their whole shape as one chunk: too large here.
  if (timeChunk <= 1 || chunkRows * chunkColumns * bytes > budgetBytes) return bySlice;
  // Whole chunks per tile, up to the output's tile edge, fewer while the run's read is too large.
  let rows = Math.max(1, Math.floor(Math.min(tile, window.height) / chunkRows));
  let columns = Math.max(1, Math.floor(Math.min(tile, window.width) / chunkColumns));
  while (rows * chunkRows * columns * chunkColumns * bytes > budgetBytes) {
    // The longer side loses a chunk (one chunk fits: checked above).
    if (columns === 1 || (rows > 1 && rows * chunkRows >= columns * chunkColumns)) rows--;
    else columns--;
  }
  return { height: Math.min(rows * chunkRows, window.height), width: Math.min(columns * chunkColumns, window.width), timeChunk };
}

/**
 * The kept indices `kept` of a dimension stored `chunk` steps a chunk, as groups of
 * consecutive output positions whose indices lie in one stored chunk: each group is read at once.
 * @example
 * chunkGroups([0, 1, 5, 9], 4); // [[0, 2], [2, 3], [3, 4]]: positions [from, to)
 */
export function chunkGroups(kept: readonly number[], chunk: number): [number, number][] {
  const groups: [number, number][] = [];
  for (let from = 0; from < kept.length;) {
    let to = from + 1;
    while (to < kept.length && Math.floor(kept[to] / chunk) === Math.floor(kept[from] / chunk)) to++;
    groups.push([from, to]);
    from = to;
  }
  return groups;
}
