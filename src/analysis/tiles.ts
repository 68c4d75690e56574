/**
 * Spatial tiles through the whole time axis: how big one may be for a memory budget, and
 * the tiles covering a window. Used by the per-pixel time-series analyses (anomaly). And
 * the spatial chunk of outputs written slice by slice (Subset, Predict).
 */
import type { Window } from "../cube/types.js";

/**
 * Budget for one tile's values through the whole time axis, counted as float64. 32 MB keeps a
 * median anomaly of a 1461-day daily cube within 300 MB above rest (64 MB took it to ~390 MB,
 * for 7 % less time: npm run bench -- --only cdo).
 */
export const TIME_TILE_BUDGET_BYTES = 32 * 1024 * 1024;
/** Largest edge of a time-whole tile. */
export const MAX_TIME_TILE = 256;

/**
 * The tile edge e such that e × e pixels × `slices` float64 values fit the budget, at most
 * `max` and at least 1.
 * @example
 * timeTileEdge(12); // 256
 * timeTileEdge(1461); // 48 (53 fit the budget; see overviewAligned)
 */
export function timeTileEdge(slices: number, budgetBytes = TIME_TILE_BUDGET_BYTES, max = MAX_TIME_TILE): number {
  const edge = Math.floor(Math.sqrt(budgetBytes / (Math.max(1, slices) * 8)));
  return Math.max(1, Math.min(max, overviewAligned(edge)));
}

/**
 * A tile edge (or band height) made to divide by 16 (by 8 under 64), losing less than a
 * quarter: output chunks of such edges can carry 4 (3) overview levels (io/zarrOverviews.ts
 * halves whole chunks). Edges under 32 stay as they are.
 * @example
 * overviewAligned(53); // 48
 * overviewAligned(181); // 176
 */
export function overviewAligned(edge: number): number {
  if (edge >= 64) return edge - (edge % 16);
  if (edge >= 32) return edge - (edge % 8);
  return edge;
}

/**
 * The tiles of edge `edge` (`width` across, when another) covering `window`, row of tiles by row of tiles, each as a window
 * of the source (absolute pixels) with its offset in the window (`ox`, `oy`).
 * @example
 * for (const t of windowTiles({ x: 10, y: 0, width: 300, height: 100 }, 256)) console.log(t.x, t.ox, t.width);
 */
export function windowTiles(window: Window, edge: number, width = edge): (Window & { readonly ox: number; readonly oy: number })[] {
  const out: (Window & { ox: number; oy: number })[] = [];
  for (let oy = 0; oy < window.height; oy += edge) {
    for (let ox = 0; ox < window.width; ox += width) {
      out.push({
        x: window.x + ox,
        y: window.y + oy,
        width: Math.min(width, window.width - ox),
        height: Math.min(edge, window.height - oy),
        ox,
        oy,
      });
    }
  }
  return out;
}

/**
 * The spatial chunk of an output written slice by slice: the slice whole when it holds at
 * most tile × tile values, else tile × tile. A daily 360 × 720 grid then makes one file and
 * one read a day rather than two (360 × 512 and 360 × 208).
 * @example
 * sliceChunk({ x: 0, y: 0, width: 720, height: 360 }, 512); // { height: 360, width: 720 }
 */
export function sliceChunk(window: Window, tile: number): { height: number; width: number } {
  return window.height * window.width <= tile * tile ? { height: window.height, width: window.width } : { height: tile, width: tile };
}

/**
 * Largest tile of one stored chunk's footprint through the whole time axis (counted as
 * float64) that a walk takes beyond its tile budget, so that its tiles hold whole chunks and
 * read each chunk once: a daily cube of 1461 steps stored 365 × 60 × 60 a chunk needs 42 MB
 * for a 60 × 60 tile, where a thread's budget gives 48 × 48 tiles, each chunk then read by
 * up to four of them.
 */
export const CHUNK_TILE_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * A tile of whole stored chunks (rows and columns multiples of the chunk's, clipped to the
 * window), about square, of at most `budgetBytes` (one chunk's footprint when only
 * CHUNK_TILE_LIMIT_BYTES holds it) at `bytesPerPixel`, no edge over `maxEdge`; undefined
 * when a chunk spans the window (nothing to align with) or exceeds those limits.
 * @example
 * wholeChunkTile([365, 60, 60], { x: 0, y: 0, width: 720, height: 360 }, 1461 * 8, 32 * 2 ** 20, 256); // { height: 60, width: 60 }
 */
export function wholeChunkTile(
  chunkShape: readonly number[],
  window: Window,
  bytesPerPixel: number,
  budgetBytes: number,
  maxEdge: number,
): { height: number; width: number } | undefined {
  if (chunkShape.length < 2) return undefined;
  const { height: H, width: W } = window;
  const [cy, cx] = chunkShape.slice(-2).map((c, i) => Math.min(c, i === 0 ? H : W));
  if ((cy >= H && cx >= W) || cy > maxEdge || cx > maxEdge || cy * cx * bytesPerPixel > Math.max(budgetBytes, CHUNK_TILE_LIMIT_BYTES)) {
    return undefined;
  }
  const chunks = Math.max(1, Math.floor(budgetBytes / (bytesPerPixel * cy * cx)));
  const [down, across] = [Math.ceil(H / cy), Math.ceil(W / cx)].map((n, i) => Math.min(n, Math.floor(maxEdge / (i === 0 ? cy : cx))));
  // Columns of chunks for a square tile of `chunks` chunks, then the rows that fit with them.
  let columns = Math.max(1, Math.min(across, Math.round(Math.sqrt((chunks * cy) / cx))));
  const rows = Math.max(1, Math.min(down, Math.floor(chunks / columns)));
  columns = Math.max(1, Math.min(across, Math.floor(chunks / rows)));
  return { height: Math.min(H, rows * cy), width: Math.min(W, columns * cx) };
}
