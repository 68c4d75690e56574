/**
 * Issue 15, must-show: uploads and jobs say what they are doing, and it moves. In headless
 * Chromium against a real server, a publisher uploads a daily cube of four years (108 MB) and
 * publishes it from the Add data form: once every byte is sent the form shows the server's
 * own words for what it does (checking the file, converting it, publishing) and the time it
 * has taken; then a Mann-Kendall trend of it runs from the generated form, and the job's
 * progress line is never empty and changes while it runs, through percentages between 0
 * and 100 with the task's words.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { writeBigCube } from "../helpers/bigCube.js";
import { saveArtifact } from "../helpers/browser.js";
import type { TestServer } from "../helpers/server.js";
import { chooseInput, jobEntry, openTask, run, signIn, waitForSucceeded } from "./appDriver.js";
import { PASSWORD, USER, type WebSession, openWebSession } from "./webSession.js";

let web: WebSession;
let server: TestServer;
let page: Page;
let dir: string;
let cube: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "strata-progress-web-"));
  cube = join(dir, "daily.nc");
  // Big enough, and jobs on one thread, for the Mann-Kendall job to last several of the app's
  // 1.5 s polls (a job of 72 × 144 pixels on two threads ended within one, one of 96 × 192
  // on one thread within two: three fitting percentages are seen at 144 × 288).
  await writeBigCube(cube, { times: 1461, height: 144, width: 288 });
  web = await openWebSession({ flags: { "no-samples": true, "job-threads": "1" }, height: 900, timeout: 30_000 });
  ({ server, page } = web);
});

after(async () => {
  await web?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Every distinct value `read` gives until `done` is true, sampled every 50 ms. */
async function sample(
  read: () => Promise<string>,
  done: () => Promise<boolean>,
  onNew?: (text: string) => Promise<void>,
): Promise<string[]> {
  const seen: string[] = [];
  while (!(await done())) {
    const text = await read().catch(() => "");
    if (text !== seen[seen.length - 1]) {
      seen.push(text);
      await onNew?.(text);
    }
    await page.waitForTimeout(50);
  }
  return seen;
}

describe("progress", { timeout: 300_000 }, () => {
  it("an upload says what the server does once every byte is sent", async () => {
    await page.goto(`${server.url}/`);
    await signIn(page, USER, PASSWORD);
    const upload = page.locator("form.upload");
    await upload.getByLabel(/Raster file/).setInputFiles(cube);
    await upload.getByLabel("Service name").fill("daily_tas");
    await upload.getByRole("button", { name: "Upload" }).click();
    let shot = false;
    const seen = await sample(
      // One read of both: two reads could straddle the render that moves the phase on.
      () =>
        upload.evaluate((form) => {
          const box = form.querySelector(".upload-progress");
          const text = box?.querySelector("[data-upload-phase]");
          if (!box || !(text instanceof HTMLElement)) throw new Error("no upload progress");
          return `${box.getAttribute("data-phase")}: ${text.innerText}`;
        }),
      async () => (await upload.locator(".upload-progress").count()) === 0,
      async (text) => {
        if (!shot && /^server: (Checking|Converting)/.test(text)) {
          shot = true;
          await saveArtifact("web/issue15-upload-progress", await upload.screenshot());
        }
      },
    );
    await upload.getByRole("status").filter({ hasText: "Uploaded daily.nc and published it as daily_tas." }).waitFor();
    const server_ = seen.filter((s) => s.startsWith("server: "));
    assert.ok(server_.length > 0, `no phase after the bytes: ${JSON.stringify(seen)}`);
    for (const s of server_) {
      assert.match(
        s,
        /^server: (Waiting for the server|Checking daily\.nc: reading its variables and dimensions|Adding the item daily|Converting daily to Zarr and computing its statistics|Publishing the image service daily_tas)… \d+ s$/,
      );
    }
    assert.ok(
      server_.some((s) => /Checking|Converting|Publishing/.test(s)),
      `the server's own words were shown: ${JSON.stringify(server_)}`,
    );
    for (const s of seen.filter((x) => x.startsWith("sending: "))) assert.match(s, /^sending: Sending daily\.nc: \d+%$/);
  });

  it("a Mann-Kendall job's progress line says what it does and moves", async () => {
    const trend = await openTask(page, "Generate Trend Raster");
    await chooseInput(trend, "Input Multidimensional Raster", "daily_tas (ana)");
    await trend.getByLabel("Output Name").fill("daily_mk");
    await trend.getByRole("combobox", { name: "Dimension", exact: true }).selectOption("StdTime");
    await trend.getByLabel("Trend Line Type").selectOption("MANN-KENDALL");
    await run(trend);
    const job = jobEntry(page, "GenerateTrendRaster", "daily_mk");
    await job.waitFor();
    let shot = false;
    const seen = await sample(
      () => job.locator("[data-progress-message]").innerText(),
      async () =>
        (await job.getAttribute("data-status")) === "esriJobSucceeded" || (await job.getAttribute("data-status")) === "esriJobFailed",
      async (text) => {
        if (!shot && /^([1-9]\d?)% · Fitting/.test(text)) {
          shot = true;
          await saveArtifact("web/issue15-progress", await page.screenshot({ fullPage: true }));
        }
      },
    );
    await waitForSucceeded(job);
    const said = seen.filter((s) => s !== "");
    assert.ok(said.length >= 3, `the progress line changed: ${JSON.stringify(seen)}`);
    assert.deepEqual(
      seen.slice(0, -1).filter((s) => s === ""),
      [],
      `the progress line is never empty while the job is active: ${JSON.stringify(seen)}`,
    );
    const fitting = said.filter((s) => /^\d+% · Fitting MANN-KENDALL trends along StdTime for tas/.test(s));
    const percentages = new Set(fitting.map((s) => Number(/^(\d+)%/.exec(s)![1])));
    assert.ok(
      [...percentages].some((p) => p > 0 && p < 100),
      `a percentage between 0 and 100: ${JSON.stringify(said)}`,
    );
    assert.ok(percentages.size >= 2, `the percentage moved: ${JSON.stringify(said)}`);
    assert.ok(shot, "a screenshot while fitting");
  });
});
