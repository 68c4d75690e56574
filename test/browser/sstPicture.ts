/**
 * Reading a screenshot of the SST climatology sample drawn by a map client, and the physical
 * facts it must show: land has no data (the background shows), the tropical ocean is warm,
 * and the picture follows the seasons. Shared by the browser tests of every client.
 */
import assert from "node:assert/strict";
import { decodePng } from "../helpers/pngDecode.js";
import { BACKGROUND, MAP_SIZE } from "./bundle.js";

export type Rgb = readonly [number, number, number];
export type Place = readonly [lon: number, lat: number];

// matplotlib's viridis at t = 0, 0.1, …, 1 (ends #440154 and #fde725); linear between stops is within a few units of it.
const VIRIDIS: readonly Rgb[] = [
  "440154",
  "482475",
  "414487",
  "355f8d",
  "2a788e",
  "21918c",
  "22a884",
  "44bf70",
  "7ad151",
  "bddf26",
  "fde725",
].map((h) => [parseInt(h.slice(0, 2), 16), parseInt(h.slice(2, 4), 16), parseInt(h.slice(4, 6), 16)] as const);

// Places and the physical facts the checks rest on (SST in °C).
const LAND: readonly Place[] = [
  [15, 23], // Sahara
  [90, 45], // Dzungaria, central Asia
  [134, -25], // central Australia
  [-55, -10], // Mato Grosso, Brazil
];
export const WARM_POOL: Place = [160, 0]; // western Pacific warm pool: above 28 °C all year
const EQUATORIAL_INDIAN: Place = [80, -5]; // above 27 °C all year
export const SOUTHERN_OCEAN: Place = [0, -60]; // about 0 °C in austral summer; sea ice (no SST) in winter
export const KUROSHIO: Place = [150, 40]; // NW Pacific: about 10 °C warmer in late summer than in late winter
const SOUTH_ATLANTIC: Place = [-40, -40]; // southern mid-latitudes: warmer in February than in August
const NORWEGIAN_SEA: Place = [5, 70]; // high latitude, ice-free all year: a few °C warmer in summer

const PLACES: readonly Place[] = [...LAND, WARM_POOL, EQUATORIAL_INDIAN, SOUTHERN_OCEAN, KUROSHIO, SOUTH_ATLANTIC, NORWEGIAN_SEA];

/** Where on viridis a colour lies (0..1) and how far it is from the ramp (RGB distance). */
function onViridis(rgb: Rgb): { t: number; distance: number } {
  let best = { t: 0, distance: Infinity };
  for (let i = 0; i <= 1000; i++) {
    const t = i / 1000;
    const k = Math.min(9, Math.floor(t * 10));
    const f = t * 10 - k;
    const c = VIRIDIS[k].map((a, j) => a + (VIRIDIS[k + 1][j] - a) * f);
    const distance = Math.hypot(c[0] - rgb[0], c[1] - rgb[1], c[2] - rgb[2]);
    if (distance < best.distance) best = { t, distance };
  }
  return best;
}

export const distance = (a: Rgb, b: Rgb) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/** One drawn map: the colour at a place, and the temperature that colour stands for. */
export interface Picture {
  colour(place: Place): Rgb;
  /** °C read back through viridis over the service's min-max; fails if the colour is not on viridis. */
  celsius(place: Place): number;
}

/**
 * Read a screenshot of the map element: the colour at each place of the checks, found with the
 * client's own projection (`pixelAt`, CSS pixels from the map's top-left corner).
 * @param range the values the default rendering spreads viridis over (the service's minValues/maxValues)
 */
export async function readPicture(
  png: Uint8Array,
  pixelAt: (place: Place) => Promise<readonly [number, number]>,
  range: { readonly min: number; readonly max: number },
  label: string,
): Promise<Picture> {
  const colourOf = screenColours(png, pixelAt);
  // Read every place up front so the checks stay synchronous.
  const colours = new Map<Place, Rgb>();
  for (const p of PLACES) colours.set(p, await colourOf(p));
  const picture: Picture = {
    colour: (p) => colours.get(p)!,
    celsius(p) {
      const c = picture.colour(p);
      const { t, distance: off } = onViridis(c);
      assert.ok(off < 12, `${label}: colour rgb(${c.join(", ")}) at ${p.join(",")} is not on viridis (${off.toFixed(1)} away)`);
      return range.min + t * (range.max - range.min);
    },
  };
  return picture;
}

/**
 * The colour a screenshot of the map element shows at a place, found with the client's own
 * projection (`pixelAt`, CSS pixels from the map's top-left corner).
 */
export function screenColours(
  png: Uint8Array,
  pixelAt: (place: Place) => Promise<readonly [number, number]>,
): (place: Place) => Promise<Rgb> {
  const image = decodePng(png);
  assert.equal(image.width, MAP_SIZE);
  return async (place) => {
    const [x, y] = await pixelAt(place);
    const i = (Math.floor(y) * image.width + Math.floor(x)) * 4;
    return [image.rgba[i], image.rgba[i + 1], image.rgba[i + 2]];
  };
}

/** Land has no data: the background shows through. */
export function checkLandTransparent(picture: Picture, label: string): void {
  for (const p of LAND) {
    const c = picture.colour(p);
    assert.ok(distance(c, BACKGROUND) < 8, `${label}: land at ${p.join(",")} should be transparent, got rgb(${c.join(", ")})`);
  }
}

/** What holds in every month: land has no data (background shows), the tropical ocean is warm. */
export function checkAnyMonth(picture: Picture, label: string): void {
  checkLandTransparent(picture, label);
  for (const p of [WARM_POOL, EQUATORIAL_INDIAN]) {
    const t = picture.celsius(p);
    assert.ok(t >= 26, `${label}: tropical ocean at ${p.join(",")} reads ${t.toFixed(1)} °C, expected ≥ 26`);
  }
}

/** Austral summer: the Southern Ocean is open water near 0 °C (the cold, dark purple end). */
export function checkAustralSummer(picture: Picture, label: string): void {
  const t = picture.celsius(SOUTHERN_OCEAN);
  assert.ok(t <= 4, `${label}: Southern Ocean reads ${t.toFixed(1)} °C, expected ≤ 4`);
}

/** From a late-winter to a late-summer month of the northern hemisphere, the picture follows the season. */
export function checkSeason(winter: Picture, summer: Picture): void {
  const kuroshio = summer.celsius(KUROSHIO) - winter.celsius(KUROSHIO);
  assert.ok(kuroshio >= 5, `the NW Pacific should warm by ≥ 5 °C from winter to summer; it changed by ${kuroshio.toFixed(1)}`);
  const south = winter.celsius(SOUTH_ATLANTIC) - summer.celsius(SOUTH_ATLANTIC);
  assert.ok(south >= 3, `the South Atlantic should be ≥ 3 °C warmer in austral summer; the difference is ${south.toFixed(1)}`);
  const norway = summer.celsius(NORWEGIAN_SEA) - winter.celsius(NORWEGIAN_SEA);
  assert.ok(norway >= 2, `the Norwegian Sea should be ≥ 2 °C warmer in summer; the difference is ${norway.toFixed(1)}`);
  // In austral winter the Southern Ocean at 60°S is under sea ice: no SST, so nothing is drawn.
  const ice = summer.colour(SOUTHERN_OCEAN);
  assert.ok(distance(ice, BACKGROUND) < 8, `the Southern Ocean in austral winter should be transparent, got rgb(${ice.join(", ")})`);
}
