/**
 * Issue 6, must-show: the Strata web app in headless Chromium, against a real server with the
 * samples published, with the network restricted to 127.0.0.1. A publisher signs in through
 * the form, runs the four tasks from the forms generated from the task descriptions (Subset,
 * Anomaly, Trend, then Predict on the trend output), sees each job succeed in the live list,
 * opens a result on the map, moves the time slider (the picture changes), clicks a pixel (a
 * chart with one point per slice), compares input and output on linked maps, and sees a
 * value only the server can refuse shown beside its field with no job created. Screenshots
 * go to test-artifacts/web/.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { Locator, Page } from "playwright-core";
import { type LoopbackPage, saveArtifact } from "../helpers/browser.js";
import { decodePng } from "../helpers/pngDecode.js";
import type { TestServer } from "../helpers/server.js";
import { afterDrawing, chooseInput, jobEntry, openTask, run, signIn, waitForSucceeded } from "./appDriver.js";
import { PASSWORD, USER, type WebSession, openWebSession } from "./webSession.js";

const TOOLS = "/rest/services/System/RasterAnalysisTools/GPServer";
const WINDS = "navy_winds_10deg (admin)";
const SST = "sst_climatology_4deg (admin)";

let web: WebSession;
let server: TestServer;
let view: LoopbackPage;
let page: Page;
let token: string;

/** Keep a screenshot of the page (or of one element) as test-artifacts/web/<name>.png. */
async function shoot(name: string, target: Page | Locator = page): Promise<Buffer> {
  const png = await target.screenshot(target === page ? { fullPage: true } : {});
  await saveArtifact(`web/${name}`, png);
  return png;
}

/** The share of pixels that differ between two screenshots of the same element. */
function changedShare(a: Buffer, b: Buffer): number {
  const [x, y] = [decodePng(a), decodePng(b)];
  assert.equal(x.width, y.width);
  let changed = 0;
  for (let i = 0; i < x.rgba.length; i += 4) {
    if (Math.abs(x.rgba[i] - y.rgba[i]) + Math.abs(x.rgba[i + 1] - y.rgba[i + 1]) + Math.abs(x.rgba[i + 2] - y.rgba[i + 2]) > 24) changed++;
  }
  return changed / (x.width * x.height);
}

const jobCount = async (task: string): Promise<number> =>
  (await server.call(`${TOOLS}/${task}/jobs`, {}, { token, method: "GET" })).total as number;

before(async () => {
  web = await openWebSession({ height: 900 });
  ({ server, view, page, token } = web);
});

after(async () => {
  await web?.close();
});

describe("the Strata web app", { timeout: 150_000 }, () => {
  it("signs in through the form, with the keyboard", async () => {
    await page.goto(`${server.url}/`);
    await shoot("01-sign-in");
    await signIn(page, USER, PASSWORD);
    const navy = page.locator("li.item", { hasText: "navy_winds_10deg" });
    await navy.locator("img.thumb").waitFor();
    // Each card names the variables with their dimensions, and the extent in degrees with hemispheres.
    assert.match(await navy.innerText(), /UWND[\s\S]*132 StdTime/);
    assert.match(await navy.innerText(), /Extent: \d+°[EW] – \d+°[EW], \d+°S – \d+°N/);
    await shoot("02-data");
  });

  it("runs Subset, Anomaly and Trend from the generated forms", async () => {
    // Subset: UWND in 1990, by a range of real time values.
    const subset = await openTask(page, "Subset Multidimensional Raster");
    await chooseInput(subset, "Input Multidimensional Raster", WINDS);
    await subset.getByLabel("Output Name").fill("uwnd_1990");
    await subset.getByRole("checkbox", { name: /^UWND/ }).check();
    await subset.getByLabel("Dimension Definition").selectOption("BY_RANGES");
    await subset.getByRole("checkbox", { name: "Limit StdTime" }).check();
    const times = await subset.locator('select[data-end="min"] option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    const in1990 = times.filter((t) => new Date(Number(t)).getUTCFullYear() === 1990);
    await subset.locator('select[data-end="min"]').selectOption(in1990[0]);
    await subset.locator('select[data-end="max"]').selectOption(in1990[in1990.length - 1]);
    await shoot("03-subset-form");
    await run(subset);
    await jobEntry(page, "SubsetMultidimensionalRaster", "uwnd_1990").waitFor();

    const anomaly = await openTask(page, "Generate Multidimensional Anomaly");
    await chooseInput(anomaly, "Input Multidimensional Raster", SST);
    await anomaly.getByLabel("Output Name").fill("sst_anomaly");
    await anomaly.getByLabel("Calculation Interval").selectOption("ALL");
    await run(anomaly);
    await jobEntry(page, "GenerateMultidimensionalAnomaly", "sst_anomaly").waitFor();

    const trend = await openTask(page, "Generate Trend Raster");
    await chooseInput(trend, "Input Multidimensional Raster", WINDS);
    await trend.getByLabel("Output Name").fill("uwnd_trend");
    await trend.getByRole("checkbox", { name: /^UWND/ }).check();
    await trend.getByRole("combobox", { name: "Dimension", exact: true }).selectOption("StdTime");
    await run(trend);
    await jobEntry(page, "GenerateTrendRaster", "uwnd_trend").waitFor();
    await shoot("04-jobs-running");

    for (const [task, output] of [
      ["SubsetMultidimensionalRaster", "uwnd_1990"],
      ["GenerateMultidimensionalAnomaly", "sst_anomaly"],
      ["GenerateTrendRaster", "uwnd_trend"],
    ]) {
      await waitForSucceeded(jobEntry(page, task, output));
    }
    const subsetService = await server.call(
      "/rest/services/Hosted/uwnd_1990/ImageServer/multidimensionalInfo",
      {},
      { token, method: "GET" },
    );
    const kept = subsetService.multidimensionalInfo.variables;
    assert.deepEqual(
      kept.map((v: { name: string }) => v.name),
      ["UWND"],
    );
    assert.equal(kept[0].dimensions[0].values.length, 12, "the twelve months of 1990");
  });

  it("runs Predict on the trend output", async () => {
    const predict = await openTask(page, "Predict Using Trend Raster");
    await chooseInput(predict, "Input Trend Raster", "uwnd_trend (ana)");
    // The trend says it was fitted along time, so the values are dates (no need to ask).
    await predict.locator('[data-fitted-along="StdTime"]').waitFor();
    await predict.getByLabel("Output Name").fill("uwnd_predicted");
    await predict.getByLabel("Value 1", { exact: true }).fill("2000-01-01");
    await predict.getByRole("button", { name: "Add a value" }).click();
    await predict.getByLabel("Value 2", { exact: true }).fill("2010-01-01");
    await run(predict);
    const job = jobEntry(page, "PredictUsingTrendRaster", "uwnd_predicted");
    await waitForSucceeded(job);
    await job.getByText(/(took|ran) \d+ s/).waitFor();
    // Screen readers hear it: the status change goes to the polite live region.
    await page.getByRole("status").filter({ hasText: "Predict Using Trend Raster job succeeded." }).waitFor();
    await shoot("05-jobs-succeeded");

    // The durations come from the server's job times, so they survive a reload.
    await page.reload();
    for (const [task, output] of [
      ["PredictUsingTrendRaster", "uwnd_predicted"],
      ["GenerateTrendRaster", "uwnd_trend"],
    ]) {
      await jobEntry(page, task, output)
        .getByText(/(took|ran) \d+ s/)
        .waitFor();
    }
  });

  it("shows the server's refusal beside the field and creates no job", async () => {
    const before = await jobCount("SubsetMultidimensionalRaster");
    const subset = await openTask(page, "Subset Multidimensional Raster");
    await chooseInput(subset, "Input Multidimensional Raster", WINDS);
    // A valid name as far as the form can tell, but a service of that name exists.
    await subset.getByLabel("Output Name").fill("sst_climatology_4deg");
    await run(subset);
    const field = subset.locator('[data-param="outputName"]');
    await field.locator(".field-error").waitFor();
    assert.match(await field.locator(".field-error").innerText(), /already taken/);
    assert.equal(await field.getByRole("textbox").getAttribute("aria-invalid"), "true");
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("name")), "outputName", "focus moves to the field");
    await shoot("06-server-error-beside-field");
    assert.equal(await jobCount("SubsetMultidimensionalRaster"), before, "no job was created");

    // The form's own checks stop what it can tell is wrong before anything is sent.
    await subset.getByLabel("Output Name").fill("not a name");
    await run(subset);
    assert.match(await field.locator(".field-error").innerText(), /letters, digits and underscores/);
    assert.equal(await jobCount("SubsetMultidimensionalRaster"), before);
  });

  it("opens a result on the map; the slider changes the picture; a click charts every slice", async () => {
    await page
      .getByRole("navigation", { name: "Views" })
      .getByRole("link", { name: /^Analysis/ })
      .click();
    const map = page.locator('.map-panel[data-side="left"] .map');
    await afterDrawing(page, map, () =>
      jobEntry(page, "GenerateMultidimensionalAnomaly", "sst_anomaly").getByRole("button", { name: "Open on map" }).click(),
    );
    const legend = page.locator('.map-panel[data-side="left"] .legend');
    assert.equal(await legend.getAttribute("data-ramp"), "RdBu_r", "anomalies get the diverging ramp");
    assert.equal(Number(await legend.getAttribute("data-min")), -Number(await legend.getAttribute("data-max")), "symmetric about zero");
    // ColorBrewer's RdBu ends, reversed: #053061 (dark blue) for the lowest values, #67001f (dark red) for the highest.
    const gradient = await legend.locator(".ramp").evaluate((e) => getComputedStyle(e).backgroundImage);
    assert.match(gradient, /^linear-gradient\(to right, rgb\(5, 48, 97\) 0%.*rgb\(103, 0, 31\) 100%\)$/);
    const january = await shoot("07-map-january", map);

    // Keyboard: the slider moves with the arrow keys, as range inputs do.
    const slider = page.getByRole("slider", { name: /StdTime/ });
    await afterDrawing(page, map, async () => {
      await slider.focus();
      for (let i = 0; i < 6; i++) await slider.press("ArrowRight");
    });
    assert.match(await page.locator('output[for$="-StdTime"]').first().innerText(), /-07-/, "July is shown");
    const july = await shoot("08-map-july", map);
    const share = changedShare(january, july);
    assert.ok(share > 0.05, `the picture should change between January and July; ${(share * 100).toFixed(1)}% of pixels did`);

    // A click on the Gulf of Guinea (0°, 0°: the centre of a global map): the values of all 12 slices there.
    const box = (await map.boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    const chart = page.locator('.map-panel[data-side="left"] .chart');
    await chart.locator(".chart-canvas[data-points]").waitFor();
    assert.equal(await chart.locator(".chart-canvas").getAttribute("data-points"), "12", "uPlot holds one point per slice");
    assert.equal(await chart.locator("tbody tr").count(), 12, "the table lists one row per slice");
    assert.ok(await chart.locator("canvas").count(), "uPlot drew");
    const values = await chart.locator("tbody tr td:nth-child(2)").allInnerTexts();
    assert.ok(
      values.every((v) => Number.isFinite(Number(v))),
      `the ocean has a value in every month: ${values.join(", ")}`,
    );
    await shoot("09-map-chart");

    // Play steps through the months by itself; Pause stops it.
    const shown = page.locator('output[for$="-StdTime"]').first();
    const month = await shown.innerText();
    await page.getByRole("button", { name: "Play" }).click();
    await page.waitForFunction((before) => document.querySelector('output[for$="-StdTime"]')?.textContent !== before, month);
    await page.getByRole("button", { name: "Pause" }).click();
    assert.equal(await page.getByRole("button", { name: "Play" }).getAttribute("aria-pressed"), "false");
  });

  it("compares input and output side by side on linked maps", async () => {
    await page
      .getByRole("navigation", { name: "Views" })
      .getByRole("link", { name: /^Analysis/ })
      .click();
    const left = page.locator('.map-panel[data-side="left"] .map');
    const right = page.locator('.map-panel[data-side="right"] .map');
    await jobEntry(page, "GenerateMultidimensionalAnomaly", "sst_anomaly").getByRole("button", { name: "Compare with input" }).click();
    await left.and(page.locator('[data-image="loaded"]')).waitFor();
    await right.and(page.locator('[data-image="loaded"]')).waitFor();
    assert.equal(await page.locator('.map-panel[data-side="left"]').getAttribute("data-service"), "sst_climatology_4deg");
    assert.equal(await page.locator('.map-panel[data-side="right"]').getAttribute("data-service"), "sst_anomaly");
    await page.waitForLoadState("networkidle");
    const before = await shoot("10-compare-right-before", right);
    // Pan the left map with the keyboard: the right one follows (they share one view).
    await afterDrawing(page, right, async () => {
      await left.focus();
      for (let i = 0; i < 4; i++) await left.press("ArrowLeft");
    });
    await page.waitForLoadState("networkidle");
    const after = await shoot("11-compare-right-after", right);
    assert.ok(changedShare(before, after) > 0.05, "the right map moved with the left one");
    await shoot("12-compare");
  });

  it("chooses a trend's band by name (bandIds), with no Band slider", async () => {
    await page
      .getByRole("navigation", { name: "Views" })
      .getByRole("link", { name: /^Analysis/ })
      .click();
    const map = page.locator('.map-panel[data-side="left"] .map');
    await afterDrawing(page, map, () =>
      jobEntry(page, "GenerateTrendRaster", "uwnd_trend").getByRole("button", { name: "Open on map" }).click(),
    );
    assert.equal(await page.locator('.map-panel[data-side="left"]').getAttribute("data-service"), "uwnd_trend");
    const panel = page.locator('.map-panel[data-side="left"]');
    assert.equal(await panel.getByRole("slider", { name: /Band/ }).count(), 0, "the bands are no dimension");
    const band = panel.getByRole("combobox", { name: "Band" });
    assert.equal(await band.locator("option:checked").innerText(), "Slope");
    assert.equal(await band.getAttribute("data-bands"), "Slope,Intercept,RMSE");
    await afterDrawing(page, map, async () => {
      await band.selectOption({ label: "Intercept" });
    });
    assert.equal(await band.locator("option:checked").innerText(), "Intercept");
    assert.equal(
      await page.locator('.map-panel[data-side="left"] .legend').getAttribute("data-ramp"),
      "viridis",
      "a trend is not an anomaly",
    );
    // matplotlib's viridis ends: #440154 and #fde725.
    const viridis = await page.locator('.map-panel[data-side="left"] .legend .ramp').evaluate((e) => getComputedStyle(e).backgroundImage);
    assert.match(viridis, /^linear-gradient\(to right, rgb\(68, 1, 84\) 0%.*rgb\(253, 231, 37\) 100%\)$/);
    await shoot("12b-trend-bands");
  });

  it("uploads a NetCDF file, publishes it, and deletes the service", async () => {
    await page.getByRole("navigation", { name: "Views" }).getByRole("link", { name: "Data" }).click();
    const upload = page.locator("form.upload");
    await upload.getByLabel(/Raster file/).setInputFiles(fileURLToPath(new URL("../../samples/sst_climatology_4deg.nc", import.meta.url)));
    await upload.getByLabel("Service name").fill("uploaded_sst");
    await upload.getByRole("button", { name: "Upload" }).click();
    await upload.getByText("published it as uploaded_sst").waitFor();
    const card = page.locator("li.item", { hasText: "uploaded_sst" });
    await card.locator("img.thumb").waitFor();
    await shoot("13-uploaded");

    page.once("dialog", (d) => void d.accept());
    await card.getByRole("button", { name: "Delete" }).click();
    await card.waitFor({ state: "detached" });
    const left = await server.call("/sharing/rest/search", { q: "", num: "100" }, { token, method: "GET" });
    assert.ok(!left.results.some((i: { name?: string }) => i.name === "uploaded_sst"), "the service item is gone");
  });

  it("fits a phone screen", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [name, link] of [
      ["data", "Data"],
      ["analysis", "Analysis"],
      ["map", "Map"],
    ]) {
      await page
        .getByRole("navigation", { name: "Views" })
        .getByRole("link", { name: new RegExp(`^${link}`) })
        .click();
      await page.waitForTimeout(300);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `the ${name} view is ${overflow} px wider than the phone`);
      await shoot(`14-phone-${name}`);
    }
  });

  it("used nothing but the Strata server", () => {
    assert.deepEqual(view.blocked, [], "requests to other hosts");
    assert.deepEqual(view.errors, [], "page errors");
    const origin = new URL(server.url).origin;
    assert.ok(
      view.requests.every((r) => r.startsWith(origin) || r.startsWith("data:")),
      "every request went to the server",
    );
  });
});
