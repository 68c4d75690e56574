/**
 * Issue 15, must-show: an item's page in the web app, in headless Chromium against a real
 * server (anonymous access allowed, the network limited to 127.0.0.1). The owner opens the
 * output of a job from the data list and sees its description, tags, source job (a link that
 * opens the job), extent (drawn on a map) and variables; edits its details; shares it to
 * public, after which it is read with no token at all; downloads its NetCDF, which xarray
 * opens with the service's variables and times; makes a folder, moves the item into it (the
 * folder then holds it), cannot delete the folder while it does, moves it back and deletes
 * the folder.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { type LoopbackPage, saveArtifact } from "../helpers/browser.js";
import { type TestServer, waitForJob } from "../helpers/server.js";
import { xarrayView } from "../helpers/xarray.js";
import { signIn } from "./appDriver.js";
import { PASSWORD, USER, type WebSession, openWebSession } from "./webSession.js";

const SUBSET = "SubsetMultidimensionalRaster";
let web: WebSession;
let server: TestServer;
let view: LoopbackPage;
let page: Page;
let token: string;
let jobId: string;
let itemId: string;
let dir: string;

const item = async (auth?: string) => server.call(`/sharing/rest/content/items/${itemId}`, {}, { token: auth, method: "GET" });

before(async () => {
  web = await openWebSession({ flags: { "allow-anonymous": true }, height: 1000 });
  ({ server, view, page, token } = web);
  dir = await mkdtemp(join(tmpdir(), "strata-item-page-"));
  const submitted = await server.call(
    `${server.tools}/${SUBSET}/submitJob`,
    {
      inputMultidimensionalRaster: JSON.stringify({ url: `${server.url}/rest/services/Hosted/navy_winds_10deg/ImageServer` }),
      outputName: JSON.stringify({ serviceProperties: { name: "ana_winds" } }),
      variables: "UWND",
    },
    { token },
  );
  jobId = submitted.jobId;
  const job = await waitForJob(server, SUBSET, jobId, token);
  assert.equal(job.jobStatus, "esriJobSucceeded", JSON.stringify(job.messages));
  itemId = (await server.call(`${server.tools}/${SUBSET}/jobs/${jobId}/results/outputMultidimensionalRaster`, {}, { token, method: "GET" }))
    .value.itemId;
});

after(async () => {
  await web?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the item page", { timeout: 180_000 }, () => {
  it("shows what the item is: source job, extent on a map, variables and dimensions", async () => {
    await page.goto(`${server.url}/`);
    await signIn(page, USER, PASSWORD);
    await page.locator("li.item").getByRole("link", { name: "ana_winds" }).click();
    const article = page.locator(`article.item-page[data-item-id="${itemId}"]`);
    await article.getByRole("heading", { name: "ana_winds" }).waitFor();
    const jobLink = article.getByRole("link", { name: `${SUBSET} ${jobId}` });
    assert.match((await jobLink.getAttribute("href")) ?? "", new RegExp(`#/job\\?task=${SUBSET}&id=${jobId}$`));
    // The extent as a box on the map, in Web Mercator metres: the navy winds grid is global
    // (-185..175 by -95..95, cell edges), so the box is the whole world up to Web Mercator's
    // ±85° (y = R ln tan(45° + 85°/2) = 19 971 869 m).
    await article.locator(".extent-map").waitFor();
    const box = (await article.locator(".extent-map").getAttribute("data-extent"))!.split(",").map(Number);
    assert.deepEqual(box, [-20037508, -19971869, 20037508, 19971869]);
    assert.match(await article.locator("[data-extent-text]").innerText(), /°[EW] – .*°[EW], .*°[SN] – .*°[NS]/);
    // One variable, UWND, with its 132 times.
    const rows = article.locator("table.variables tbody tr");
    assert.equal(await rows.count(), 1);
    assert.match(await rows.first().innerText(), /UWND[\s\S]*StdTime\s+132\s+1982-01-16/);

    await jobLink.click();
    const job = page.locator(`li.job[data-job-id="${jobId}"]`);
    await job.and(page.locator('[data-status="esriJobSucceeded"]')).waitFor();
    await page.goBack();
    await article.waitFor();
  });

  it("edits the title, description and tags", async () => {
    const editor = page.locator("form.item-editor");
    await editor.getByLabel("Title").fill("Navy winds, east");
    await editor.getByLabel("Description").fill("UWND from the navy winds sample.\nMade in the item page test.");
    await editor.getByLabel(/^Tags/).fill("wind, navy , wind");
    await editor.getByRole("button", { name: "Save details" }).click();
    await editor.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    const saved = await item(token);
    assert.equal(saved.title, "Navy winds, east");
    assert.equal(saved.description, "UWND from the navy winds sample.\nMade in the item page test.");
    assert.deepEqual(saved.tags, ["wind", "navy"]);
    await page.getByRole("heading", { name: "Navy winds, east" }).waitFor();
    assert.deepEqual(await page.getByRole("list", { name: "Tags" }).locator("li").allInnerTexts(), ["wind", "navy"]);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await saveArtifact("web/issue15-item-page", await page.screenshot({ fullPage: true }));
  });

  it("shares the item to public: then it is read without a token", async () => {
    const anonymousBefore = await item();
    assert.ok(anonymousBefore.error, "a private item is not anonymous reading");
    const sharing = page.locator("section.item-sharing");
    await sharing.getByRole("radio", { name: /^Public/ }).check();
    await sharing.getByRole("status").filter({ hasText: "Shared with public." }).waitFor();
    await page.locator("[data-access]", { hasText: "public" }).waitFor();
    const anonymous = await item();
    assert.equal(anonymous.access, "public", JSON.stringify(anonymous));
    assert.equal(anonymous.title, "Navy winds, east");
    // The service itself too, as ArcGIS clients without a token would ask it.
    const md = await server.call("/rest/services/Hosted/ana_winds/ImageServer/multidimensionalInfo", {}, { method: "GET" });
    assert.equal(md.multidimensionalInfo.variables[0].name, "UWND");
    await saveArtifact("web/issue15-share", await sharing.screenshot());
    await sharing.getByRole("radio", { name: /^Organisation/ }).check();
    await sharing.getByRole("status").filter({ hasText: "Shared with organisation." }).waitFor();
    assert.ok((await item()).error, "back to the organisation: not anonymous reading");
    assert.equal((await item(token)).access, "org");
  });

  it("downloads the service as NetCDF-4 that xarray reads", async () => {
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download NetCDF" }).click()]);
    assert.equal(download.suggestedFilename(), "ana_winds.nc");
    const file = join(dir, "ana_winds.nc");
    await download.saveAs(file);
    const head = (await readFile(file)).subarray(0, 8);
    assert.deepEqual([...head], [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a], "the HDF5 signature NetCDF-4 files start with");
    const x = xarrayView(file);
    // The service's one variable (and the CF grid mapping beside it); the job left VWND out.
    assert.deepEqual(
      Object.keys(x.variables).filter((v) => x.variables[v].dims.length > 0),
      ["UWND"],
    );
    const md = await server.call("/rest/services/Hosted/ana_winds/ImageServer/multidimensionalInfo", {}, { token, method: "GET" });
    const times: number[] = md.multidimensionalInfo.variables[0].dimensions.find((d: { name: string }) => d.name === "StdTime").values;
    const timeDim = x.variables.UWND.dims[0];
    assert.equal(x.variables.UWND.shape[0], times.length);
    const first = x.coords[timeDim].values[0];
    assert.equal(new Date(String(first)).getTime(), times[0], `first time ${first}`);
  });

  it("makes a folder, moves the item into it, and deletes the folder once empty", async () => {
    await page.getByRole("navigation", { name: "Views" }).getByRole("link", { name: "Data" }).click();
    const folders = page.getByRole("navigation", { name: "Folders" });
    await folders.getByLabel("New folder").fill("Winds");
    await folders.getByRole("button", { name: "Create" }).click();
    await page.getByRole("heading", { name: "Image services in Winds" }).waitFor();
    const folderId = (await folders.locator("li", { hasText: "Winds" }).getAttribute("data-folder-id"))!;
    assert.ok(folderId);

    await page.goto(`${server.url}/#/item?id=${itemId}`);
    const sharing = page.locator("section.item-sharing");
    await sharing.getByLabel("Folder").selectOption({ label: "Winds" });
    await sharing.getByRole("status").filter({ hasText: "Moved to Winds." }).waitFor();
    const inFolder = await server.call(`/sharing/rest/content/users/ana/${folderId}`, {}, { token, method: "GET" });
    assert.deepEqual(
      inFolder.items.map((i: { id: string }) => i.id),
      [itemId],
    );

    await page.getByRole("link", { name: "← All data" }).click();
    await folders.getByRole("link", { name: "Winds" }).click();
    await page.getByRole("heading", { name: "Image services in Winds" }).waitFor();
    // The list of all data may still be shown for a moment, while the folder's is fetched.
    await page.locator("li.item").nth(1).waitFor({ state: "detached" });
    await page.locator("li.item").getByRole("link", { name: "Navy winds, east" }).waitFor();
    assert.equal(await page.locator("li.item").count(), 1, "the folder shows the one item it holds");
    assert.ok(
      await folders.getByRole("button", { name: "Delete the folder Winds" }).isDisabled(),
      "a folder holding an item cannot be deleted",
    );

    await page.locator("li.item").getByRole("link", { name: "Navy winds, east" }).click();
    await sharing.getByLabel("Folder").selectOption({ label: "(root)" });
    await sharing.getByRole("status").filter({ hasText: "Moved to the root folder." }).waitFor();
    await page.goto(`${server.url}/#/data?folder=${folderId}`);
    await page.getByText("This folder is empty").waitFor();
    await folders.getByRole("button", { name: "Delete the folder Winds" }).click();
    await page.getByRole("heading", { name: "Image services", exact: true }).waitFor();
    const left = await server.call("/sharing/rest/content/users/ana", {}, { token, method: "GET" });
    assert.deepEqual(left.folders, []);
    assert.deepEqual(view.blocked, [], "nothing but 127.0.0.1 was asked");
    assert.deepEqual(view.errors, []);
  });
});
