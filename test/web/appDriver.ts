/**
 * Driving the Strata web app in a page the way a user does: by labels, roles and buttons
 * (so the test also checks the forms are labelled), plus a few data attributes the app
 * exposes for state (job status, image loading, legend ramp, chart points).
 */
import assert from "node:assert/strict";
import type { Locator, Page } from "playwright-core";

/** Sign in with the keyboard alone: Tab to the username, type, Tab, type, Enter. */
export async function signIn(page: Page, username: string, password: string): Promise<void> {
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("name")), "username", "the first stop is the username");
  await page.keyboard.type(username);
  await page.keyboard.press("Tab");
  await page.keyboard.type(password);
  await page.keyboard.press("Enter");
  await page.locator("[data-username]", { hasText: username }).waitFor();
}

/** Open the Analysis view on a task's generated form. */
export async function openTask(page: Page, displayName: string): Promise<Locator> {
  await page
    .getByRole("navigation", { name: "Views" })
    .getByRole("link", { name: /^Analysis/ })
    .click();
  await page.getByRole("navigation", { name: "Tasks" }).getByRole("button", { name: displayName }).click();
  const form = page.locator("form.task-form", { has: page.getByRole("heading", { name: displayName }) });
  await form.waitFor();
  return form;
}

/** Choose the input raster by its option text (e.g. "navy_winds_10deg (admin)"). */
export async function chooseInput(form: Locator, label: string, option: string): Promise<void> {
  const select = form.getByLabel(label);
  await select.locator("option", { hasText: option }).first().waitFor({ state: "attached" });
  await select.selectOption({ label: option });
}

/** Submit and wait until the form is ready again (a job was created or errors are shown). */
export async function run(form: Locator): Promise<void> {
  await form.getByRole("button", { name: "Run" }).click();
  await form.getByRole("button", { name: "Run" }).waitFor();
}

/** The job list entry of a task whose output name is `output`. */
export const jobEntry = (page: Page, task: string, output: string): Locator =>
  page.locator(`li.job[data-task="${task}"]`, { has: page.getByRole("heading", { name: new RegExp(`→ ${output}$`) }) });

export async function waitForSucceeded(job: Locator, timeout = 60_000): Promise<void> {
  await job.and(job.page().locator('[data-status="esriJobSucceeded"]')).waitFor({ timeout });
}

/** A map panel whose image has finished loading after `action` (which makes it load). */
export async function afterDrawing(page: Page, map: Locator, action: () => Promise<unknown>): Promise<void> {
  const drawn = page.waitForResponse((r) => r.url().includes("/exportImage") && r.ok(), { timeout: 20_000 });
  await action();
  await drawn;
  await map.and(page.locator('[data-image="loaded"]')).waitFor();
  // The image is on the canvas once OpenLayers has rendered the frame after the load.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}
