/**
 * The two ramps the app draws with, as the server builds them (src/services/render/colormaps.ts):
 * viridis from control points of matplotlib's table, RdBu from ColorBrewer's 11 colours; `_r`
 * reverses, so RdBu_r runs blue (low) → white → red (high). Used for the legend's gradient.
 */
export type RampName = "viridis" | "RdBu_r";

const VIRIDIS =
  "0:440154 8:470d60 23:482173 29:482979 50:414287 81:32648e 120:23898e 132:1f948c 139:1e9b8a 151:21a685 157:25ac82 " +
  "166:2fb47c 177:40bd72 190:5ac864 203:77d153 233:c5e021 239:d5e21a 242:dde318 246:e7e419 251:f4e61e 255:fde725";
const RDBU = "67001f b2182b d6604d f4a582 fddbc7 f7f7f7 d1e5f0 92c5de 4393c3 2166ac 053061";

/** Colour stops: position 0..1 along the ramp and a CSS colour. */
export type Stop = readonly [position: number, colour: string];

function stops(name: RampName): Stop[] {
  if (name === "viridis") {
    return VIRIDIS.split(" ").map((knot) => {
      const [index, hex] = knot.split(":");
      return [Number(index) / 255, `#${hex}`] as const;
    });
  }
  const colours = RDBU.split(" ").reverse();
  return colours.map((hex, i) => [i / (colours.length - 1), `#${hex}`] as const);
}

/** A CSS gradient of the ramp, low values at the left. */
export function cssGradient(name: RampName): string {
  return `linear-gradient(to right, ${stops(name)
    .map(([p, c]) => `${c} ${(p * 100).toFixed(1)}%`)
    .join(", ")})`;
}
