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
import { type TestServer, startTestServer } from "../helpers/server.js";
import { MAP_SIZE, bundlePage } from "./bundle.js";
import type { TimeChoice } from "./pages/harness.js";
import { type Picture, checkAnyMonth, checkAustralSummer, checkSeason, readPicture } from "./sstPicture.js";

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
  return readPicture(png, (place) => page.evaluate(([lon, lat]) => window.mapHarness!.pixelAt(lon, lat), place), range, artefact);
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
