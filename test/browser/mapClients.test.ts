/**
 * Issue 5, must-show 1: web map clients draw Strata's exportImage in EPSG:3857. In headless
 * Chromium, an OpenLayers ImageArcGISRest layer and an esri-leaflet imageMapLayer show the
 * SST climatology sample; the test reads known pixels of a screenshot and checks them against
 * physical facts and the viridis ramp (Strata's default rendering: viridis from the
 * variable's minimum to its maximum), then picks another month and checks the picture followed
 * the season. The pages reach nothing but 127.0.0.1.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { type LoopbackPage, launchChromium, openLoopbackPage, saveArtifact, serveFiles } from "../helpers/browser.js";
import { decodePng } from "../helpers/pngDecode.js";
import { type TestServer, startTestServer } from "../helpers/server.js";
import { BACKGROUND, MAP_SIZE, bundlePage } from "./bundle.js";
import type { TimeChoice } from "./pages/harness.js";

type Rgb = readonly [number, number, number];
type Place = readonly [lon: number, lat: number];

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
const WARM_POOL: Place = [160, 0]; // western Pacific warm pool: above 28 °C all year
const EQUATORIAL_INDIAN: Place = [80, -5]; // above 27 °C all year
const SOUTHERN_OCEAN: Place = [0, -60]; // about 0 °C in austral summer; sea ice (no SST) in winter
const KUROSHIO: Place = [150, 40]; // NW Pacific: about 10 °C warmer in late summer than in late winter
const SOUTH_ATLANTIC: Place = [-40, -40]; // southern mid-latitudes: warmer in February than in August
const NORWEGIAN_SEA: Place = [5, 70]; // high latitude, ice-free all year: a few °C warmer in summer

const SERVICE_PATH = "/rest/services/Hosted/sst_climatology_4deg/ImageServer";

let server: TestServer;
let browser: Browser;
/** The slice times by month (0 = January), from multidimensionalInfo. */
let months: number[];
/** The range the default rendering spreads viridis over (the service's minValues/maxValues). */
let range: { min: number; max: number };

before(async () => {
  [server, browser] = await Promise.all([startTestServer({ "allow-anonymous": true }), launchChromium()]);
  const info = await server.call(SERVICE_PATH, {}, { method: "GET" });
  assert.equal(info.bandNames?.[0], "SST", "the SST climatology sample is published");
  range = { min: info.minValues[0], max: info.maxValues[0] };
  const md = await server.call(`${SERVICE_PATH}/multidimensionalInfo`, {}, { method: "GET" });
  const values: number[] = md.multidimensionalInfo.variables[0].dimensions.find((d: { name: string }) => d.name === "StdTime").values;
  months = [];
  for (const v of values) months[new Date(v).getUTCMonth()] = v;
  assert.equal(months.filter((m) => m !== undefined).length, 12, "one slice per month");
});
after(async () => {
  await browser?.close();
  await server?.close();
});

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

const distance = (a: Rgb, b: Rgb) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/** One drawn map: the colour at a place, and the temperature that colour stands for. */
interface Picture {
  colour(place: Place): Rgb;
  /** °C read back through viridis over the service's min-max; fails if the colour is not on viridis. */
  celsius(place: Place): number;
}

/** The exportImage requests the page made, as URLs. */
const exportRequests = (view: LoopbackPage) =>
  view.requests.map((r) => new URL(r)).filter((u) => u.pathname.endsWith(`${SERVICE_PATH}/exportImage`));

/** Show a time on the page's map, screenshot the map (kept as an artefact), and read it. */
async function draw(view: LoopbackPage, time: TimeChoice, artefact: string): Promise<Picture> {
  const { page } = view;
  try {
    await page.evaluate((t) => window.mapHarness!.show(t), time);
  } catch (e) {
    // Say what the client asked and what Strata answered (clients keep only a short message).
    const last = exportRequests(view).at(-1);
    const answer = last ? await (await fetch(last)).text() : "no exportImage request was made";
    throw new Error(
      `${artefact}: the map did not draw (${(e as Error).message.split("\n")[0]})\nlast exportImage: ${last?.href}\nStrata answers: ${answer}`,
      { cause: e },
    );
  }
  const png = await page.locator("#map").screenshot();
  await saveArtifact(`browser/${artefact}`, png);
  const image = decodePng(png);
  assert.equal(image.width, MAP_SIZE);
  const colour = async (place: Place): Promise<Rgb> => {
    const [x, y] = await page.evaluate(([lon, lat]) => window.mapHarness!.pixelAt(lon, lat), place);
    const i = (Math.floor(y) * image.width + Math.floor(x)) * 4;
    return [image.rgba[i], image.rgba[i + 1], image.rgba[i + 2]];
  };
  // Read every place up front so the checks below stay synchronous.
  const places = [...LAND, WARM_POOL, EQUATORIAL_INDIAN, SOUTHERN_OCEAN, KUROSHIO, SOUTH_ATLANTIC, NORWEGIAN_SEA];
  const colours = new Map<Place, Rgb>();
  for (const p of places) colours.set(p, await colour(p));
  const picture: Picture = {
    colour: (p) => colours.get(p)!,
    celsius(p) {
      const c = picture.colour(p);
      const { t, distance: off } = onViridis(c);
      assert.ok(off < 12, `${artefact}: colour rgb(${c.join(", ")}) at ${p.join(",")} is not on viridis (${off.toFixed(1)} away)`);
      return range.min + t * (range.max - range.min);
    },
  };
  return picture;
}

/** What holds in every month: land has no data (background shows), the tropical ocean is warm. */
function checkAnyMonth(picture: Picture, label: string): void {
  for (const p of LAND) {
    const c = picture.colour(p);
    assert.ok(distance(c, BACKGROUND) < 8, `${label}: land at ${p.join(",")} should be transparent, got rgb(${c.join(", ")})`);
  }
  for (const p of [WARM_POOL, EQUATORIAL_INDIAN]) {
    const t = picture.celsius(p);
    assert.ok(t >= 26, `${label}: tropical ocean at ${p.join(",")} reads ${t.toFixed(1)} °C, expected ≥ 26`);
  }
}

/** Austral summer: the Southern Ocean is open water near 0 °C (the cold, dark purple end). */
function checkAustralSummer(picture: Picture, label: string): void {
  const t = picture.celsius(SOUTHERN_OCEAN);
  assert.ok(t <= 4, `${label}: Southern Ocean reads ${t.toFixed(1)} °C, expected ≤ 4`);
}

/** From a late-winter to a late-summer month of the northern hemisphere, the picture follows the season. */
function checkSeason(winter: Picture, summer: Picture): void {
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

/** Open a bundled map page on its own loopback server, pointed at the SST service. */
async function openMapPage(name: string): Promise<{ view: LoopbackPage; close(): Promise<void> }> {
  const site = await serveFiles(await bundlePage(name));
  const view = await openLoopbackPage(browser, { width: MAP_SIZE + 40, height: MAP_SIZE + 40 });
  await view.page.goto(`${site.url}?service=${encodeURIComponent(server.url + SERVICE_PATH)}`);
  await view.page.waitForFunction(() => window.mapHarness !== undefined);
  return {
    view,
    async close() {
      await view.close();
      await site.close();
    },
  };
}

/** Nothing left 127.0.0.1 and no script failed. */
function checkIsolated(view: LoopbackPage): void {
  assert.deepEqual(view.blocked, [], "requests to other hosts");
  assert.deepEqual(view.errors, [], "page errors");
}

describe("web map clients draw exportImage in EPSG:3857", { timeout: 60_000 }, () => {
  it("OpenLayers ImageArcGISRest: January then July by time=<instant>", async () => {
    const { view, close } = await openMapPage("openlayers");
    try {
      const january = await draw(view, { instant: months[0] }, "openlayers-january");
      checkAnyMonth(january, "OpenLayers January");
      checkAustralSummer(january, "OpenLayers January");
      const july = await draw(view, { instant: months[6] }, "openlayers-july");
      checkAnyMonth(july, "OpenLayers July");
      checkSeason(january, july);

      const sent = exportRequests(view);
      assert.ok(sent.length >= 2, "one exportImage request per month");
      for (const u of sent) {
        assert.equal(u.searchParams.get("imageSR"), "3857", u.href);
        assert.equal(u.searchParams.get("bboxSR"), "3857", u.href);
        assert.equal(u.searchParams.get("f"), "image", u.href);
      }
      const times = sent.map((u) => u.searchParams.get("time"));
      assert.ok(times.includes(String(months[0])) && times.includes(String(months[6])), `times asked: ${times.join(" ")}`);
      checkIsolated(view);
    } finally {
      await close();
    }
  });

  it("esri-leaflet imageMapLayer: February then August by from/to (time=<from>,<to>), f=json", async () => {
    const { view, close } = await openMapPage("leaflet");
    try {
      // A calendar month as from/to: Strata draws the latest slice inside it, that month's.
      const month = (m: number): TimeChoice => {
        const d = new Date(months[m]);
        const from = new Date(0);
        from.setUTCFullYear(d.getUTCFullYear(), m, 1);
        const to = new Date(from);
        to.setUTCMonth(m + 1);
        return { from: from.getTime(), to: to.getTime() - 1 };
      };
      const february = await draw(view, month(1), "leaflet-february");
      checkAnyMonth(february, "Leaflet February");
      checkAustralSummer(february, "Leaflet February");
      const august = await draw(view, month(7), "leaflet-august");
      checkAnyMonth(august, "Leaflet August");
      checkSeason(february, august);

      const sent = exportRequests(view);
      assert.ok(sent.length >= 2, "one exportImage request per month");
      for (const u of sent) {
        assert.equal(u.searchParams.get("imageSR"), "3857", u.href);
        assert.equal(u.searchParams.get("bboxSR"), "3857", u.href);
        assert.equal(u.searchParams.get("f"), "json", u.href);
      }
      const times = sent.map((u) => u.searchParams.get("time"));
      for (const m of [1, 7]) {
        const t = month(m) as { from: number; to: number };
        assert.ok(times.includes(`${t.from},${t.to}`), `times asked: ${times.join(" ")}`);
      }
      // f=json answers an href; the layer then loads the image from output/.
      assert.ok(
        view.requests.some((r) => new URL(r).pathname.includes(`${SERVICE_PATH}/output/`)),
        "images loaded from output/",
      );
      checkIsolated(view);
    } finally {
      await close();
    }
  });
});
