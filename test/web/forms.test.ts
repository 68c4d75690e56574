/**
 * Issue 15, must-show: the generated task forms speak the user's words. In headless Chromium
 * against a real server: keyword options show a label with the keyword beside it, help no
 * longer shows JSON (the REST text is one click away), each field names its REST parameter
 * beside its label; the environment settings are fields, and a box drawn on the extent
 * picker's map lands, as the degrees under the mouse, in the submitted job's context (read
 * back from the job's inputs), with the cell size chosen; the job's output lies in the box.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { type LoopbackPage, saveArtifact } from "../helpers/browser.js";
import { type TestServer, waitForJob } from "../helpers/server.js";
import { chooseInput, jobEntry, openTask, run, signIn } from "./appDriver.js";
import { PASSWORD, USER, type WebSession, openWebSession } from "./webSession.js";

const SUBSET = "SubsetMultidimensionalRaster";
const WINDS = "navy_winds_10deg (admin)";
let web: WebSession;
let server: TestServer;
let view: LoopbackPage;
let page: Page;
let token: string;

before(async () => {
  web = await openWebSession({ height: 1000 });
  ({ server, view, page, token } = web);
  await page.goto(`${server.url}/`);
  await signIn(page, USER, PASSWORD);
});

after(async () => {
  await web?.close();
});

const optionTexts = (page: Page, selector: string) =>
  page.locator(`${selector} option`).evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).textContent?.trim() ?? ""));

/** Web Mercator's inverse, by hand: metres to degrees on the sphere of radius 6 378 137 m. */
const R = 6378137;
const lonOf = (x: number) => (x / R) * (180 / Math.PI);
const latOf = (y: number) => (2 * Math.atan(Math.exp(y / R)) - Math.PI / 2) * (180 / Math.PI);

describe("task forms", { timeout: 180_000 }, () => {
  it("show keyword labels with the keyword beside, help without JSON, the REST name beside each label", async () => {
    const trend = await openTask(page, "Generate Trend Raster");
    assert.deepEqual(await optionTexts(page, 'form[data-task="GenerateTrendRaster"] select[name="trendLineType"]'), [
      "Straight line (LINEAR)",
      "Harmonic (a seasonal cycle and a trend) (HARMONIC)",
      "Polynomial curve (POLYNOMIAL)",
      "Mann-Kendall test (Sen's slope) (MANN-KENDALL)",
      "Seasonal Kendall test (SEASONAL-KENDALL)",
    ]);
    // The value sent is still the keyword.
    await trend.getByLabel("Trend Line Type").selectOption({ label: "Mann-Kendall test (Sen's slope) (MANN-KENDALL)" });
    assert.equal(await trend.getByLabel("Trend Line Type").inputValue(), "MANN-KENDALL");
    await trend.getByLabel("Trend Line Type").selectOption("LINEAR");

    const subset = await openTask(page, "Subset Multidimensional Raster");
    assert.deepEqual(await optionTexts(page, `form[data-task="${SUBSET}"] select[name="dimensionDefinition"]`), [
      "All slices (ALL)",
      "Chosen values (BY_VALUE)",
      "Ranges of values (BY_RANGES)",
      "Repeating windows (BY_ITERATION)",
    ]);
    const input = subset.locator('[data-param="inputMultidimensionalRaster"]');
    assert.equal(await input.locator("p.help").innerText(), "One of your image services or uploaded rasters.");
    assert.equal(await input.locator("code.keyword").first().innerText(), "inputMultidimensionalRaster");
    assert.ok(!(await input.locator("details.rest-help").evaluate((d) => (d as HTMLDetailsElement).open)), "the REST text is folded away");
    assert.match((await input.locator("details.rest-help p").textContent()) ?? "", /\{"itemId": \.\.\.\}/);
    for (const help of await subset.locator("p.help").allInnerTexts()) assert.doesNotMatch(help, /[{[]"/, `help shows JSON: ${help}`);
    // The label itself is the human name (the keyword is beside it, not in it).
    await subset.getByLabel("Output Name").waitFor();
    await saveArtifact("web/issue15-form-labels", await page.screenshot({ fullPage: true }));
  });

  it("sends the extent drawn on the map, and the cell size, in the job's context", async () => {
    const subset = await openTask(page, "Subset Multidimensional Raster");
    await chooseInput(subset, "Input Multidimensional Raster", WINDS);
    await subset.getByLabel("Output Name").fill("winds_drawn");
    await subset.locator("summary", { hasText: "Environment settings" }).click();
    const context = subset.locator('[data-param="context"]');
    await context.getByRole("button", { name: "Draw a box" }).click();
    const map = context.locator(".extent-map");
    await map.and(page.locator('[data-drawing="true"]')).waitFor();
    await map.locator(".ol-layer canvas").first().waitFor(); // a frame drawn at the map's size, fitted to the world
    const { x, y, width: w, height: h } = (await map.boundingBox())!;
    const from = [0.55 * w, 0.3 * h];
    const to = [0.75 * w, 0.55 * h];
    await page.mouse.move(x + from[0], y + from[1]);
    await page.mouse.down();
    await page.mouse.move(x + (from[0] + to[0]) / 2, y + (from[1] + to[1]) / 2, { steps: 5 });
    await page.mouse.move(x + to[0], y + to[1], { steps: 5 });
    await page.mouse.up();
    await map.and(page.locator('[data-drawing="false"]')).waitFor();

    // Where those pixels are: the map is fitted to Web Mercator x -20 037 508..20 037 508 and
    // y -12 000 000..14 000 000, centred at y 1 000 000. Its 2:1 box would let the height
    // decide, but OpenLayers shows at most one world across (multiWorld false): the world's
    // width over the map's is the resolution.
    const inner = await map.evaluate((e) => [e.clientWidth, e.clientHeight]);
    const res = 40_075_016 / inner[0];
    const border = (w - inner[0]) / 2;
    const lonAt = (px: number) => lonOf((px - border - inner[0] / 2) * res);
    const latAt = (py: number) => latOf(1_000_000 - (py - border - inner[1] / 2) * res);
    const edges = Object.fromEntries(
      await Promise.all(
        (["West", "South", "East", "North"] as const).map(async (edge) => [
          edge,
          Number(await context.getByLabel(new RegExp(`^${edge}`)).inputValue()),
        ]),
      ),
    ) as Record<"West" | "South" | "East" | "North", number>;
    const near = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) < 1, `${what}: ${a} drawn, ${b} under the mouse`);
    near(edges.West, lonAt(from[0]), "west");
    near(edges.East, lonAt(to[0]), "east");
    near(edges.North, latAt(from[1]), "north");
    near(edges.South, latAt(to[1]), "south");

    await context.getByLabel("Cell size").selectOption({ label: "A size…" });
    await context.getByLabel(/^Size/).fill("10");
    await saveArtifact("web/issue15-extent-picker", await context.screenshot());
    await run(subset);
    const job = jobEntry(page, SUBSET, "winds_drawn");
    await job.waitFor();
    const jobId = (await job.getAttribute("data-job-id"))!;
    const sent = await server.call(`${server.tools}/${SUBSET}/jobs/${jobId}/inputs/context`, {}, { token, method: "GET" });
    const value = typeof sent.value === "string" ? JSON.parse(sent.value) : sent.value;
    assert.deepEqual(value, {
      extent: { xmin: edges.West, ymin: edges.South, xmax: edges.East, ymax: edges.North, spatialReference: { wkid: 4326 } },
      cellSize: 10,
    });
    const done = await waitForJob(server, SUBSET, jobId, token);
    assert.equal(done.jobStatus, "esriJobSucceeded", JSON.stringify(done.messages));
    const out = (await server.call("/rest/services/Hosted/winds_drawn/ImageServer", {}, { token, method: "GET" })).extent;
    // Whole 10° cells that touch the box.
    assert.ok(out.xmin > edges.West - 10 && out.xmax < edges.East + 10, JSON.stringify(out));
    assert.ok(out.ymin > edges.South - 10 && out.ymax < edges.North + 10, JSON.stringify(out));
    assert.deepEqual(view.errors, []);
  });
});
