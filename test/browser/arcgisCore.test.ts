/**
 * Issue 12 §5, must-show: the real ArcGIS Maps SDK (@arcgis/core, bundled from node_modules,
 * its assets served by the test; the page reaches nothing but 127.0.0.1) against Strata in
 * headless Chromium. An ImageryLayer draws the multidimensional SST climatology and a
 * TimeSlider built from the layer's timeInfo steps it from winter to summer; an ImageryLayer
 * with format "lerc" and an ImageryTileLayer draw from LERC pixels; geoprocessor.submitJob
 * runs a Subset, waits with waitForJobCompletion and reads the result with fetchResultData.
 * The server is token-secured: the page registers a publisher's token with the SDK's
 * IdentityManager, as an app holding a token would.
 *
 * Every request the page makes to Strata and every error Strata answers (a non-2xx status or
 * an ArcGIS error envelope) is written to test-artifacts/browser/arcgis-core-requests.txt and
 * printed as diagnostics, so what the SDK asks and Strata does not answer is in plain view.
 */
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { ARTIFACTS_DIR, type LoopbackPage, saveArtifact } from "../helpers/browser.js";
import type { TestServer } from "../helpers/server.js";
import { BACKGROUND } from "./bundle.js";
import type { TimeSpan } from "./pages/arcgisCore.js";
import { type SdkFixture, openSignedInSdkPage, startSdkFixture } from "./sdkFixture.js";
import {
  KUROSHIO,
  type Picture,
  type Rgb,
  SOUTHERN_OCEAN,
  WARM_POOL,
  checkAnyMonth,
  checkAustralSummer,
  checkLandTransparent,
  checkSeason,
  distance,
  readPicture,
} from "./sstPicture.js";

const SERVICE_PATH = "/rest/services/Hosted/sst_climatology_4deg/ImageServer";
const PUBLISHER = "pia";

let sdk: SdkFixture;
let server: TestServer;
let token: string;
let service: string;
/** The slice times of the SST sample, January first (from multidimensionalInfo). */
let months: number[];
/** The range the default rendering spreads viridis over (the service's minValues/maxValues). */
let range: { min: number; max: number };

/** Every request the pages made to Strata, and every error Strata answered, in order. */
const strataRequests: string[] = [];
const strataErrors: string[] = [];

before(async () => {
  sdk = await startSdkFixture(PUBLISHER);
  ({ server, token } = sdk);
  service = server.url + SERVICE_PATH;
  const info = await server.call(SERVICE_PATH, {}, { token, method: "GET" });
  assert.equal(info.bandNames?.[0], "SST", "the SST climatology sample is published");
  range = { min: info.minValues[0], max: info.maxValues[0] };
  const md = await server.call(`${SERVICE_PATH}/multidimensionalInfo`, {}, { token, method: "GET" });
  months = md.multidimensionalInfo.variables[0].dimensions.find((d: { name: string }) => d.name === "StdTime").values;
  assert.deepEqual(
    months.map((m) => new Date(m).getUTCMonth()),
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
    "one slice per month, January first",
  );
});

after(async () => {
  await sdk?.close();
  const log = ["Requests to Strata:", ...strataRequests, "", "Errors Strata answered:", ...strataErrors, ""].join("\n");
  await mkdir(join(ARTIFACTS_DIR, "browser"), { recursive: true });
  await writeFile(join(ARTIFACTS_DIR, "browser", "arcgis-core-requests.txt"), log);
});

/** A Strata URL as path and query, decoded to read, the token hidden. */
function shown(url: string): string {
  const hidden = url.replace(server.url, "").replace(/([?&]token=)[^&]+/, "$1<token>");
  try {
    return decodeURIComponent(hidden);
  } catch {
    return hidden;
  }
}

/** The requests the page made to Strata whose path ends so, as URLs. */
const requestsTo = (view: LoopbackPage, pathEnd: string) =>
  view.requests.map((r) => new URL(r)).filter((u) => u.href.startsWith(server.url) && u.pathname.endsWith(pathEnd));

/** Log what the page asks Strata, and every error it answers: a status of 300 or more, or an error envelope in JSON. */
function recordStrata(page: Page, consoleErrors: string[]): void {
  page.on("console", (m) => {
    if (m.type() === "error") consoleErrors.push(m.text());
  });
  page.on("response", async (response) => {
    const url = response.url();
    if (!url.startsWith(server.url)) return;
    const method = response.request().method();
    strataRequests.push(`${method} ${shown(url)} -> ${response.status()}`);
    if (response.status() >= 300) {
      strataErrors.push(`${method} ${shown(url)} -> HTTP ${response.status()}`);
      return;
    }
    if (!(response.headers()["content-type"] ?? "").includes("json")) return;
    const body = await response.text().catch(() => "");
    if (body.includes('"error"')) {
      const error = (JSON.parse(body) as { error?: { code?: number; message?: string } }).error;
      if (error) strataErrors.push(`${method} ${shown(url)} -> error ${error.code}: ${error.message}`);
    }
  });
}

interface SdkPage {
  readonly view: LoopbackPage;
  readonly page: Page;
  /** console.error lines (the SDK logs a layer it could not load there). */
  readonly consoleErrors: string[];
  close(): Promise<void>;
}

/** The SDK page in a fresh browser context, signed in to Strata with the publisher's token. */
async function openSdkPage(): Promise<SdkPage> {
  const consoleErrors: string[] = [];
  const view = await openSignedInSdkPage(sdk, (page) => recordStrata(page, consoleErrors));
  return { view, page: view.page, consoleErrors, close: () => view.close() };
}

/** Screenshot the map (kept as an artefact) and read it. */
async function picture({ page }: SdkPage, artefact: string): Promise<Picture> {
  const png = await page.locator("#map").screenshot();
  await saveArtifact(`browser/${artefact}`, png);
  return readPicture(png, (place) => page.evaluate(([lon, lat]) => window.arcgisHarness!.pixelAt(lon, lat), place), range, artefact);
}

/** Nothing left 127.0.0.1, no script failed, and Strata failed no request with a server error. */
function checkIsolated(sdk: SdkPage): void {
  assert.deepEqual(sdk.view.blocked, [], "requests to other hosts");
  assert.deepEqual(sdk.view.errors, [], "page errors");
  const serverErrors = strataErrors.filter((e) => / -> (HTTP 5\d\d|error 5\d\d)/.test(e));
  assert.deepEqual(serverErrors, [], "Strata answered with server errors");
}

/** Run a step of the page; when it fails, say what Strata answered wrongly meanwhile. */
async function step<T>(sdk: SdkPage, what: string, run: () => Promise<T>): Promise<T> {
  const errorsBefore = strataErrors.length;
  try {
    return await run();
  } catch (e) {
    const answered = strataErrors.slice(errorsBefore);
    throw new Error(
      `${what}: ${(e as Error).message.split("\n")[0]}\nStrata's error answers meanwhile:\n  ${answered.join("\n  ") || "(none)"}\n` +
        `the SDK logged:\n  ${sdk.consoleErrors.join("\n  ") || "(nothing)"}`,
      { cause: e },
    );
  }
}

/** Hue of a colour in degrees (0 red, 60 yellow, 180 cyan, 240 blue). */
function hue([r, g, b]: Rgb): number {
  const max = Math.max(r, g, b);
  const span = max - Math.min(r, g, b);
  if (span === 0) return NaN;
  const h = max === r ? (g - b) / span : max === g ? 2 + (b - r) / span : 4 + (r - g) / span;
  return (h * 60 + 360) % 360;
}

/**
 * A January picture the SDK rendered itself from LERC pixels. Its default renderer for a
 * scientific float band is a stretch over the ramp blue → cyan → yellow → red
 * (rasterRendererHelper.js in @arcgis/core), whose hue falls from 240° to 0° as the value
 * rises. So: land is transparent, the ocean is drawn, and hue falls with temperature: warm
 * pool (29 °C) below Kuroshio (about 15 °C in January) below Southern Ocean (about 0 °C).
 */
function checkClientRendered(january: Picture, label: string): void {
  checkLandTransparent(january, label);
  for (const p of [WARM_POOL, KUROSHIO, SOUTHERN_OCEAN]) {
    const c = january.colour(p);
    assert.ok(distance(c, BACKGROUND) > 40, `${label}: the ocean at ${p.join(",")} should be drawn, got rgb(${c.join(", ")})`);
  }
  const [warm, kuroshio, southern] = [WARM_POOL, KUROSHIO, SOUTHERN_OCEAN].map((p) => hue(january.colour(p)));
  assert.ok(
    warm < kuroshio && kuroshio < southern,
    `${label}: hue should fall as temperature rises (warm pool ${warm.toFixed(0)}° < Kuroshio ${kuroshio.toFixed(0)}° < Southern Ocean ${southern.toFixed(0)}°)`,
  );
}

describe("the ArcGIS Maps SDK (@arcgis/core) against Strata, offline in Chromium", { timeout: 120_000 }, () => {
  it("ImageryLayer (the SDK's default format) draws January; a TimeSlider from the layer's timeInfo steps it to late summer", async () => {
    const sdk = await openSdkPage();
    try {
      const time = await step(sdk, "ImageryLayer", () => sdk.page.evaluate((u) => window.arcgisHarness!.showImagery(u), service));
      assert.deepEqual(time.fullTimeExtent, { start: months[0], end: months[11] }, "the layer's timeInfo is the service's time extent");
      assert.ok(time.interval, "the layer read the service's default time step");
      const january = await picture(sdk, "arcgis-imagery-january");
      checkAnyMonth(january, "ImageryLayer January");
      checkAustralSummer(january, "ImageryLayer January");
      const [first] = requestsTo(sdk.view, `${SERVICE_PATH}/exportImage`);
      assert.equal(first.searchParams.get("format"), "jpgpng", "the SDK's default format for scientific data");
      const definition = JSON.parse(first.searchParams.get("mosaicRule") ?? "{}").multidimensionalDefinition;
      assert.deepEqual(definition?.[0]?.values, [months[0]], "the first slice, from multidimensionalInfo");

      const start = await step(sdk, "TimeSlider", () => sdk.page.evaluate(() => window.arcgisHarness!.addTimeSlider()));
      assert.equal(start.start, months[0], "the slider starts at the layer's first time");
      // Step to August: the stops, one per the service's default step from the first slice, fall on the slices.
      let now: TimeSpan = start;
      for (let i = 0; i < 12 && new Date(now.start!).getUTCMonth() < 7; i++) {
        now = await step(sdk, "TimeSlider step", () => sdk.page.evaluate(() => window.arcgisHarness!.stepTime()));
      }
      assert.equal(
        now.start,
        months[7],
        `the slider's stops are the slices: it reached August's (at ${new Date(now.start!).toISOString()})`,
      );
      const last = requestsTo(sdk.view, `${SERVICE_PATH}/exportImage`).at(-1)!;
      assert.equal(last.searchParams.get("time"), String(now.start), "the view's time reached exportImage");
      const summer = await picture(sdk, "arcgis-imagery-timeslider-august");
      checkAnyMonth(summer, "ImageryLayer after the TimeSlider");
      checkSeason(january, summer);
      checkIsolated(sdk);
    } finally {
      await sdk.close();
    }
  });

  // Raw pixels the SDK renders itself: LERC (what its pixel access asks for) and GeoTIFF, whose
  // no data the SDK masks only through GDAL_NODATA (not NaN: Strata writes the lowest float32).
  for (const format of ["lerc", "tiff"] as const) {
    it(`ImageryLayer with format "${format}" draws the SST from raw pixels`, async () => {
      const sdk = await openSdkPage();
      try {
        await step(sdk, `ImageryLayer ${format}`, () =>
          sdk.page.evaluate(([u, f]) => window.arcgisHarness!.showImagery(u, f), [service, format] as const),
        );
        const sent = requestsTo(sdk.view, `${SERVICE_PATH}/exportImage`);
        assert.ok(sent.length > 0 && sent.every((u) => u.searchParams.get("format") === format), `exportImage asked as ${format}`);
        checkClientRendered(await picture(sdk, `arcgis-imagery-${format}-january`), `ImageryLayer ${format}`);
        checkIsolated(sdk);
      } finally {
        await sdk.close();
      }
    });
  }

  it("ImageryTileLayer draws the SST from LERC tiles", async () => {
    const sdk = await openSdkPage();
    try {
      await step(sdk, "ImageryTileLayer", () => sdk.page.evaluate((u) => window.arcgisHarness!.showTiles(u), service));
      assert.ok(
        requestsTo(sdk.view, "").some((u) => u.pathname.includes(`${SERVICE_PATH}/tile/`)),
        "tiles were asked for",
      );
      assert.deepEqual(requestsTo(sdk.view, `${SERVICE_PATH}/exportImage`), [], "no exportImage: a tile layer reads tiles");
      checkClientRendered(await picture(sdk, "arcgis-tiles-lerc-january"), "ImageryTileLayer");
      checkIsolated(sdk);
    } finally {
      await sdk.close();
    }
  });

  it("geoprocessor.submitJob runs Subset; waitForJobCompletion and fetchResultData read a real output", async () => {
    const sdk = await openSdkPage();
    try {
      const name = "sst_july_from_arcgis_core";
      const outcome = await step(sdk, "submitJob", () =>
        sdk.page.evaluate(
          ([task, input, output]) =>
            window.arcgisHarness!.runJob(
              task,
              {
                inputMultidimensionalRaster: { url: input },
                outputName: { serviceProperties: { name: output } },
                variables: "SST",
                dimensionDefinition: "BY_VALUE",
                dimensionValues: [{ dimension: "StdTime", value: "July" }],
              },
              "outputMultidimensionalRaster",
            ),
          [`${server.tools}/SubsetMultidimensionalRaster`, service, name],
        ),
      );
      assert.equal(outcome.jobStatus, "job-succeeded", outcome.messages.join("; "));
      assert.equal(outcome.result.paramName, "outputMultidimensionalRaster");
      const value = outcome.result.value as { url: string; itemId: string };
      assert.equal(value.url, `${server.url}/rest/services/Hosted/${name}/ImageServer`);
      // The output is real: its service holds July only, and its item is the publisher's and names that service.
      const md = await server.call(`${value.url}/multidimensionalInfo`, {}, { token, method: "GET" });
      const times = md.multidimensionalInfo.variables[0].dimensions.find((d: { name: string }) => d.name === "StdTime").values;
      assert.deepEqual(times, [months[6]], "the output holds the July slice");
      const item = await server.call(`/sharing/rest/content/items/${value.itemId}`, {}, { token, method: "GET" });
      assert.equal(item.owner, PUBLISHER);
      assert.equal(item.url, value.url);
      // The SDK submitted, polled the job and read the result through Strata's GP routes.
      assert.equal(requestsTo(sdk.view, "/SubsetMultidimensionalRaster/submitJob").length > 0, true, "submitJob");
      assert.ok(requestsTo(sdk.view, "/results/outputMultidimensionalRaster").length > 0, "the result was fetched");
      checkIsolated(sdk);
    } finally {
      await sdk.close();
    }
  });

  it("reports what the SDK asked Strata and which answers were errors", (t) => {
    // Kept apart so a reader of the test output sees the list whatever passed or failed above.
    for (const e of strataErrors) t.diagnostic(e);
    assert.ok(strataRequests.length > 0, "the pages asked Strata something");
  });
});
