/**
 * Zoom and pan along a uPlot chart's x axis: the mouse wheel zooms about the pointer, and
 * buttons zoom about the middle and pan by a fifth of the view (for keyboard users). uPlot
 * itself zooms to a dragged span and resets on double-click. The view never leaves the data.
 */
import type uPlot from "uplot";

/** The data's x range: the furthest a view can reach. */
function dataRange(u: uPlot): [number, number] {
  const xs = u.data[0];
  return [xs[0], xs[xs.length - 1]];
}

/** Show [min, max] clamped to the data, keeping its width when it can. */
function showRange(u: uPlot, min: number, max: number): void {
  const [lo, hi] = dataRange(u);
  const width = Math.min(max - min, hi - lo);
  if (!(width > 0)) return;
  let a = Math.max(lo, Math.min(min, hi - width));
  let b = a + width;
  if (b > hi) [a, b] = [hi - width, hi];
  u.setScale("x", { min: a, max: b });
}

/** Zoom by `factor` (below 1 zooms in) about x = `at`. */
export function zoomAbout(u: uPlot, factor: number, at?: number): void {
  const { min, max } = u.scales.x;
  if (min === undefined || max === undefined) return;
  const centre = at ?? (min + max) / 2;
  showRange(u, centre - (centre - min) * factor, centre + (max - centre) * factor);
}

/** Pan by `share` of the view's width (negative: towards earlier values). */
export function pan(u: uPlot, share: number): void {
  const { min, max } = u.scales.x;
  if (min === undefined || max === undefined) return;
  const shift = (max - min) * share;
  showRange(u, min + shift, max + shift);
}

export function resetZoom(u: uPlot): void {
  const [lo, hi] = dataRange(u);
  u.setScale("x", { min: lo, max: hi });
}

/** Wheel up zooms in about the pointer, wheel down out. */
export function wheelZoomPlugin(): uPlot.Plugin {
  return {
    hooks: {
      ready(u) {
        u.over.addEventListener(
          "wheel",
          (e) => {
            e.preventDefault();
            const at = u.posToVal(e.offsetX, "x");
            zoomAbout(u, e.deltaY < 0 ? 0.8 : 1.25, at);
          },
          { passive: false },
        );
      },
    },
  };
}
