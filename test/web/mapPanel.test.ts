/**
 * Issue 15, must-show: the map panel and chart in headless Chromium against a real server,
 * network restricted to 127.0.0.1. Values are checked against the server's own REST answers
 * (identify, multidimensionalInfo), against the synthetic cube's known slopes, and against a
 * GeoTIFF decoder (geotiff.js), never against the app's code. Screenshots go to
 * test-artifacts/web/issue15-*.png.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fromArrayBuffer } from "geotiff";
import type { Locator, Page } from "playwright-core";
import { type LoopbackPage, saveArtifact } from "../helpers/browser.js";
import { decodePng } from "../helpers/pngDecode.js";
import { type TestServer, waitForJob } from "../helpers/server.js";
import { afterDrawing, signIn } from "./appDriver.js";
import { slopeAt } from "./dailyCube.js";
import { publishDailyAndTrend } from "./dailyCube.js";
import { PASSWORD, USER, type WebSession, openWebSession } from "./webSession.js";

const DAY = 86_400_000;
let web: WebSession;
let server: TestServer;
let view: LoopbackPage;
let page: Page;
let token: string;
let daily = "";
let trend = "";
let navy = "";
let navy1990 = "";

async function shoot(name: string, target: Page | Locator = page): Promise<Buffer> {
  const png = await target.screenshot(target === page ? { fullPage: true } : {});
  await saveArtifact(`web/issue15-${name}`, png);
  return png;
}

const rest = (url: string, params: Record<string, string> = {}) => server.call(url, params, { token, method: "GET" });

/** identify's values (every band) at a longitude/latitude, at `time` when given. */
async function identifyAt(url: string, lon: number, lat: number, extra: Record<string, string> = {}): Promise<number[]> {
  const answer = await rest(`${url}/identify`, {
    geometry: JSON.stringify({ x: lon, y: lat, spatialReference: { wkid: 4326 } }),
    geometryType: "esriGeometryPoint",
    ...extra,
  });
  return String(answer.value).split(" ").map(Number);
}

/** Open a map hash and wait for the left map's first image. */
async function openMap(left: string, right?: string): Promise<Locator> {
  const map = page.locator('.map-panel[data-side="left"] .map');
  const hash = `#/map?${new URLSearchParams({ left, ...(right ? { right } : {}) })}`;
  // From the world map, so that a panel showing the same service is built afresh (starting
  // idle: an image the browser had cached draws without a network response to wait for).
  await page.evaluate(() => (location.hash = "#/map"));
  await page.locator(".world-map").waitFor();
  await page.evaluate((h) => (location.hash = h), hash);
  await map.and(page.locator('[data-image="loaded"]')).waitFor();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  return map;
}

/** Click the map at a fraction of its width and height; the readout's point is where it landed. */
async function clickMap(map: Locator, fx: number, fy: number): Promise<{ lon: number; lat: number }> {
  const box = (await map.boundingBox())!;
  await page.mouse.click(box.x + box.width * fx, box.y + box.height * fy);
  const readout = page.locator('.map-panel[data-side="left"] .readout');
  await readout.and(page.locator(':not([data-value=""])')).waitFor();
  return { lon: Number(await readout.getAttribute("data-lon")), lat: Number(await readout.getAttribute("data-lat")) };
}

/** Distinct colours (to 1/32 per channel) among a screenshot's opaque pixels. */
function colourCount(png: Buffer): number {
  const { rgba } = decodePng(png);
  const seen = new Set<number>();
  for (let i = 0; i < rgba.length; i += 4) seen.add(((rgba[i] >> 3) << 10) | ((rgba[i + 1] >> 3) << 5) | (rgba[i + 2] >> 3));
  return seen.size;
}

const closeTo = (actual: number, expected: number, relative: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= relative * Math.abs(expected), `${what}: ${actual}, expected ${expected}`);

before(async () => {
  web = await openWebSession({ height: 1000 });
  ({ server, view, page, token } = web);
  ({ daily, trend } = await publishDailyAndTrend(server, USER, token));
  navy = `${server.url}/rest/services/Hosted/navy_winds_10deg/ImageServer`;
  const times: number[] = (await rest(`${navy}/multidimensionalInfo`)).multidimensionalInfo.variables[0].dimensions[0].values;
  const in1990 = times.filter((t) => new Date(t).getUTCFullYear() === 1990);
  const subset = await server.call(
    `${server.tools}/SubsetMultidimensionalRaster/submitJob`,
    {
      inputMultidimensionalRaster: JSON.stringify({ url: navy }),
      outputName: "uwnd_1990",
      variables: "UWND",
      dimensionDefinition: "BY_RANGES",
      dimensionRanges: JSON.stringify([{ dimension: "StdTime", minValue: in1990[0], maxValue: in1990[in1990.length - 1] }]),
    },
    { token },
  );
  assert.equal((await waitForJob(server, "SubsetMultidimensionalRaster", subset.jobId, token)).jobStatus, "esriJobSucceeded");
  navy1990 = `${server.url}/rest/services/Hosted/uwnd_1990/ImageServer`;
  await page.goto(`${server.url}/`);
  await signIn(page, USER, PASSWORD);
});

after(async () => {
  await web?.close();
});

describe("issue 15: the map panel and chart", { timeout: 240_000 }, () => {
  it("draws the world from the app's own data before a service is chosen", async () => {
    await page.evaluate(() => (location.hash = "#/map"));
    const world = page.locator(".world-map");
    await world.waitFor();
    // The land and borders are fetched from the app's assets; wait until they are drawn.
    await page.waitForLoadState("networkidle");
    await page.waitForTimeout(300);
    const png = await shoot("basemap", world);
    const { rgba } = decodePng(png);
    let land = 0;
    for (let i = 0; i < rgba.length; i += 4) if (rgba[i] === 0xe4 && rgba[i + 1] === 0xe1 && rgba[i + 2] === 0xda) land++;
    const share = land / (rgba.length / 4);
    assert.ok(share > 0.1 && share < 0.6, `land (#e4e1da) should cover part of the world map: ${(share * 100).toFixed(1)}%`);
    assert.deepEqual(view.blocked, [], "no tiles or anything else from elsewhere");
  });

  it("stretches each trend band on its own and shows the slope per year and per decade with its unit", async () => {
    const map = await openMap(trend);
    const panel = page.locator('.map-panel[data-side="left"]');
    const legend = panel.locator(".legend");
    const stats = (await rest(`${trend}/multidimensionalInfo`)).multidimensionalInfo.variables[0].statistics;
    // The Slope band's own range, not one spanning every band (Intercept is ~15, Slope ~1e-4).
    assert.equal(Number(await legend.getAttribute("data-min")), stats[0].min);
    assert.equal(Number(await legend.getAttribute("data-max")), stats[0].max);
    const slopeMap = await shoot("trend-slope-map", map);
    const colours = colourCount(slopeMap);
    assert.ok(colours > 40, `the Slope band should be drawn in many colours, not one: ${colours}`);

    // A click east of the centre: the bands as labelled values, equal to identify's.
    const { lon, lat } = await clickMap(map, 0.75, 0.5);
    const values = await identifyAt(trend, lon, lat);
    const table = panel.locator(".trend-values");
    await table.waitFor();
    const slope = Number(await table.locator('tr[data-band="Slope"] td').getAttribute("data-value"));
    closeTo(slope, values[0], 1e-12, "the Slope shown");
    // The synthetic cube's slope at that column, known without Strata (least squares over ten whole seasonal cycles).
    const column = Math.floor((lon + 180) / 10);
    assert.ok(Math.abs(slope - slopeAt(-175 + 10 * column)) < 5e-6, `slope ${slope} vs the cube's ${slopeAt(-175 + 10 * column)}`);
    const perDecade = await table.locator('[data-per="decade"]').innerText();
    const perYear = await table.locator('[data-per="year"]').innerText();
    assert.match(perDecade, /^-?[\d.e+-]+ degC per decade$/);
    assert.match(perYear, /^-?[\d.e+-]+ degC per year$/);
    closeTo(Number(perDecade.split(" ")[0]), values[0] * 3652.5, 5e-4, "per decade = Slope × 3652.5 days");
    closeTo(Number(perYear.split(" ")[0]), values[0] * 365.25, 5e-4, "per year = Slope × 365.25 days");
    assert.match(await table.locator('tr[data-band="Slope"] td').innerText(), /degC per day/);
    assert.match(await table.locator('tr[data-band="Intercept"] td').innerText(), /^[\d.]+ degC$/);
    const pValue = Number(await table.locator('tr[data-band="SlopePValue"] td').getAttribute("data-value"));
    closeTo(pValue, values[3], 1e-12, "SlopePValue");

    // The fitted line over the input's series: Intercept + Slope × days since 1970 at each of its days.
    const chart = panel.locator(".chart", { hasText: "trend's input" });
    await chart.locator(".chart-canvas[data-points]").waitFor();
    assert.equal(await chart.locator(".chart-canvas").getAttribute("data-points"), "3652");
    const times: number[] = (await rest(`${daily}/multidimensionalInfo`)).multidimensionalInfo.variables[0].dimensions[0].values;
    const rows = chart.locator("tbody tr");
    for (const i of [0, 1000, times.length - 1]) {
      const fitted = Number(await rows.nth(i).locator("td").nth(2).getAttribute("data-value"));
      closeTo(fitted, values[1] + values[0] * (times[i] / DAY), 1e-9, `fitted value on day ${i}`);
    }
    const inputValue = Number(await rows.nth(1000).locator("td").nth(1).textContent());
    const [direct] = await identifyAt(daily, lon, lat, { time: String(times[1000]) });
    closeTo(inputValue, direct, 1e-3, "the input's value on day 1000");
    await shoot("trend-slope", panel);

    // Another band gets its own range: P values span 0..1-ish, far from the slope's.
    await afterDrawing(page, map, () => panel.getByRole("combobox", { name: "Band" }).selectOption({ label: "SlopePValue" }));
    assert.equal(Number(await legend.getAttribute("data-max")), stats[3].max);
    const pMap = await shoot("trend-pvalue-map", map);
    assert.ok(colourCount(pMap) > 10, "the P value band is drawn in several colours");
  });

  it("reads out the clicked point: coordinates, value, unit and time, equal to identify's", async () => {
    const map = await openMap(daily);
    const panel = page.locator('.map-panel[data-side="left"]');
    const { lon, lat } = await clickMap(map, 0.3, 0.4);
    const readout = panel.locator(".readout");
    const slider = panel.getByRole("slider", { name: /StdTime/ });
    await afterDrawing(page, map, () => slider.fill("200"));
    const times: number[] = (await rest(`${daily}/multidimensionalInfo`)).multidimensionalInfo.variables[0].dimensions[0].values;
    const [expected] = await identifyAt(daily, lon, lat, { time: String(times[200]) });
    // identify's text has float32's 8 digits.
    await page.waitForFunction(
      (v) => Math.abs(Number(document.querySelector('.map-panel[data-side="left"] .readout')?.getAttribute("data-value")) - v) < 1e-5,
      expected,
    );
    const text = await readout.innerText();
    assert.match(text, /degC/, "the value's unit");
    assert.match(text, new RegExp(new Date(times[200]).toISOString().slice(0, 10)), "the slice's date");
    assert.match(
      text,
      new RegExp(`${Math.abs(lat).toFixed(2)}°${lat < 0 ? "S" : "N"}, ${Math.abs(lon).toFixed(2)}°${lon < 0 ? "W" : "E"}`),
    );
    await shoot("readout", panel);
  });

  it("sends the chosen stretch and ramp as a renderingRule ArcGIS understands, and the legend follows", async () => {
    const map = await openMap(daily);
    const panel = page.locator('.map-panel[data-side="left"]');
    const stats = (await rest(`${daily}/multidimensionalInfo`)).multidimensionalInfo.variables[0].statistics[0];
    const before = await map.screenshot();
    const rules: string[] = [];
    page.on("request", (r) => r.url().includes("/exportImage") && rules.push(new URL(r.url()).searchParams.get("renderingRule") ?? ""));
    await afterDrawing(page, map, () => panel.getByLabel("Stretch", { exact: true }).selectOption("standardDeviation"));
    await afterDrawing(page, map, async () => {
      await panel.getByLabel("Standard deviations").fill("1");
      await panel.getByLabel("Standard deviations").press("Enter");
    });
    let rule = JSON.parse(rules[rules.length - 1]);
    assert.equal(rule.rasterFunction, "Colormap");
    assert.equal(rule.rasterFunctionArguments.Raster.rasterFunctionArguments.StretchType, 3);
    assert.equal(rule.rasterFunctionArguments.Raster.rasterFunctionArguments.NumberOfStandardDeviations, 1);
    const legend = panel.locator(".legend");
    // mean ± 1 sd lies inside the data's range here, so nothing is clamped.
    assert.ok(stats.mean - stats.standardDeviation > stats.min && stats.mean + stats.standardDeviation < stats.max);
    closeTo(Number(await legend.getAttribute("data-min")), stats.mean - stats.standardDeviation, 1e-12, "legend min = mean − 1 sd");
    closeTo(Number(await legend.getAttribute("data-max")), stats.mean + stats.standardDeviation, 1e-12, "legend max = mean + 1 sd");

    await afterDrawing(page, map, () => panel.getByLabel("Colour ramp").selectOption("magma"));
    rule = JSON.parse(rules[rules.length - 1]);
    assert.equal(rule.rasterFunctionArguments.ColorrampName, "magma");
    // matplotlib's magma starts at #000004.
    const gradient = await legend.locator(".ramp").evaluate((e) => getComputedStyle(e).backgroundImage);
    assert.match(gradient, /^linear-gradient\(to right, rgb\(0, 0, 4\) 0%/);
    const after = await map.screenshot();
    assert.notDeepEqual(decodePng(before).rgba, decodePng(after).rgba, "the picture changed");

    await afterDrawing(page, map, () => panel.getByLabel("Stretch", { exact: true }).selectOption("percentClip"));
    rule = JSON.parse(rules[rules.length - 1]).rasterFunctionArguments.Raster.rasterFunctionArguments;
    assert.deepEqual([rule.StretchType, rule.MinPercent, rule.MaxPercent], [6, 2, 2]);
    assert.match(await legend.innerText(), /lowest 2%[\s\S]*highest 2%/);
    // An ArcGIS ramp by its name; the legend draws the server's table of it.
    await afterDrawing(page, map, () => panel.getByLabel("Colour ramp").selectOption("Temperature"));
    assert.equal(JSON.parse(rules[rules.length - 1]).rasterFunctionArguments.ColorrampName, "Temperature");
    await shoot("stretch", panel);
  });

  it("links the two time sliders by time value when comparing", async () => {
    await openMap(navy, navy1990);
    const left = page.locator('.map-panel[data-side="left"]');
    const right = page.locator('.map-panel[data-side="right"]');
    await right.locator('.map[data-image="loaded"]').waitFor();
    const times: number[] = (await rest(`${navy}/multidimensionalInfo`)).multidimensionalInfo.variables[0].dimensions[0].values;
    const july1990 = times.findIndex((t) => new Date(t).toISOString().startsWith("1990-07"));
    await left.getByRole("slider", { name: /StdTime/ }).fill(String(july1990));
    const shown = (panel: Locator) => panel.locator('output[for$="-StdTime"]').innerText();
    await page.waitForFunction(() => document.querySelector('.map-panel[data-side="right"] output')?.textContent?.startsWith("1990-07"));
    assert.equal(await shown(left), await shown(right), "both show July 1990");
    assert.equal(
      await right.getByRole("slider", { name: /StdTime/ }).inputValue(),
      "6",
      "index 6 of the 1990 subset, not the left's index",
    );
    // And the other way: the right map's March moves the left one to March 1990.
    await right.getByRole("slider", { name: /StdTime/ }).fill("2");
    await page.waitForFunction(() => document.querySelector('.map-panel[data-side="left"] output')?.textContent?.startsWith("1990-03"));
    assert.equal(await shown(left), await shown(right));
    await page.waitForLoadState("networkidle");
    await shoot("compare");
    // Unlinked, they move alone.
    await page.getByRole("checkbox", { name: "Link the time sliders" }).uncheck();
    await right.getByRole("slider", { name: /StdTime/ }).fill("5");
    await page.waitForTimeout(200);
    assert.match(await shown(left), /^1990-03/);
  });

  it("downloads the current slice as a GeoTIFF of values at the grid's resolution, and the service as NetCDF", async () => {
    const map = await openMap(navy);
    const panel = page.locator('.map-panel[data-side="left"]');
    await afterDrawing(page, map, () => panel.getByRole("slider", { name: /StdTime/ }).fill("30"));
    await panel.getByText("Download", { exact: true }).click();
    const tiffLink = panel.getByRole("link", { name: "GeoTIFF of this slice" });
    await tiffLink.waitFor();
    await shoot("download", panel);
    const href = (await tiffLink.getAttribute("href"))!;
    // Fetched by the page, as the link would be (the token is bound to the page's origin).
    const bytes: number[] = await page.evaluate(async (u) => [...new Uint8Array(await (await fetch(u)).arrayBuffer())], href);
    const tiff = await fromArrayBuffer(new Uint8Array(bytes).buffer);
    const image = await tiff.getImage();
    const info = await rest(navy);
    const cols = Math.round((info.extent.xmax - info.extent.xmin) / info.pixelSizeX);
    const rows = Math.round((info.extent.ymax - info.extent.ymin) / info.pixelSizeY);
    assert.deepEqual([image.getWidth(), image.getHeight()], [cols, rows], "full resolution of the service's grid");
    const [raster] = (await image.readRasters()) as unknown as ArrayLike<number>[];
    const times: number[] = (await rest(`${navy}/multidimensionalInfo`)).multidimensionalInfo.variables[0].dimensions[0].values;
    // A cell's value (row 5, column 12, north-up from the extent's corner) equals identify's at its centre for slice 30.
    const [r, c] = [5, 12];
    const lon = info.extent.xmin + (c + 0.5) * info.pixelSizeX;
    const lat = info.extent.ymax - (r + 0.5) * info.pixelSizeY;
    const [expected] = await identifyAt(navy, lon > 180 ? lon - 360 : lon, lat, { time: String(times[30]) });
    closeTo(raster[r * cols + c], expected, 1e-6, "the GeoTIFF's value");

    const ncHref = (await panel.getByRole("link", { name: "NetCDF of the service" }).getAttribute("href"))!;
    const head: { type: string; disposition: string; magic: number[] } = await page.evaluate(async (u) => {
      const response = await fetch(u);
      const magic = [...new Uint8Array(await response.arrayBuffer()).slice(0, 4)];
      return { type: response.headers.get("content-type") ?? "", disposition: response.headers.get("content-disposition") ?? "", magic };
    }, ncHref);
    assert.equal(head.type, "application/x-netcdf");
    assert.match(head.disposition, /attachment; filename="navy_winds_10deg.nc"/);
    assert.deepEqual(head.magic, [0x89, 0x48, 0x44, 0x46], "an HDF5 (NetCDF-4) file");
  });

  it("charts 3,652 days with readable date ticks, and zooms and pans", async () => {
    const map = await openMap(daily);
    const panel = page.locator('.map-panel[data-side="left"]');
    await clickMap(map, 0.5, 0.5);
    const canvas = panel.locator(".chart-canvas[data-points]");
    await canvas.waitFor();
    assert.equal(await canvas.getAttribute("data-points"), "3652");
    const ticks = async () => (await canvas.getAttribute("data-ticks"))!.split("|");
    const all = await ticks();
    assert.ok(all.length >= 3, `ticks: ${all}`);
    assert.ok(
      all.every((t) => /^\d{4}$/.test(t)),
      `a ten-year span ticks on years: ${all.join(", ")}`,
    );
    const range = async () => [Number(await canvas.getAttribute("data-x-min")), Number(await canvas.getAttribute("data-x-max"))];
    const [min0, max0] = await range();
    const tools = panel.getByRole("toolbar", { name: /Zoom and pan/ });
    await tools.getByRole("button", { name: "Zoom in" }).click();
    await tools.getByRole("button", { name: "Zoom in" }).click();
    await tools.getByRole("button", { name: "Zoom in" }).click();
    const [min1, max1] = await range();
    closeTo(max1 - min1, (max0 - min0) / 8, 1e-9, "three zooms in show an eighth");
    const zoomed = await ticks();
    assert.ok(
      zoomed.every((t) => /^\d{4}-(\d{2})$/.test(t)),
      `a 15-month span ticks on months: ${zoomed.join(", ")}`,
    );
    await shoot("chart-zoom", panel.locator(".chart"));
    await tools.getByRole("button", { name: "Pan later" }).click();
    const [min2, max2] = await range();
    closeTo(min2 - min1, (max1 - min1) * 0.2, 1e-9, "panned by a fifth");
    closeTo(max2 - min2, max1 - min1, 1e-9, "the same width");
    // The wheel zooms about the pointer.
    const box = (await canvas.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, 200);
    const [min3, max3] = await range();
    closeTo(max3 - min3, (max2 - min2) * 1.25, 1e-9, "the wheel zoomed out");
    await tools.getByRole("button", { name: "Reset zoom" }).click();
    assert.deepEqual(await range(), [min0, max0]);
  });

  it("used nothing but the Strata server, with no page errors", () => {
    assert.deepEqual(view.blocked, []);
    assert.deepEqual(view.errors, []);
  });
});
