/**
 * What every web app browser test stands on: the app built, a Strata test server with the
 * publisher "ana", headless Chromium, and one 1280-wide page that may reach only 127.0.0.1.
 */
import type { Browser, Page } from "playwright-core";
import { type LoopbackPage, launchChromium, openLoopbackPage } from "../helpers/browser.js";
import { type TestServer, startTestServer } from "../helpers/server.js";
import { ensureWebBuilt } from "./ensureBuilt.js";

/** The publisher every web app test signs in as, and her password. */
export const USER = "ana";
export const PASSWORD = "ana-password-1";

export interface WebSession {
  readonly server: TestServer;
  readonly browser: Browser;
  readonly view: LoopbackPage;
  readonly page: Page;
  /** ana's token, for the test's own REST calls. */
  readonly token: string;
  close(): Promise<void>;
}

export interface WebSessionOptions {
  /** Server flags (startTestServer). */
  readonly flags?: Parameters<typeof startTestServer>[0];
  /** The page's height in CSS pixels. */
  readonly height: number;
  /** Playwright's default wait for the page, ms. */
  readonly timeout?: number;
}

/** Build the app if need be, start Strata and Chromium, sign up ana, and open the page (not yet at the app). */
export async function openWebSession({ flags = {}, height, timeout = 20_000 }: WebSessionOptions): Promise<WebSession> {
  await ensureWebBuilt();
  const [server, browser] = await Promise.all([startTestServer(flags), launchChromium()]);
  let view: LoopbackPage | undefined;
  const close = async () => {
    await view?.close();
    await browser.close();
    await server.close();
  };
  try {
    await server.addUser(USER, "publisher", PASSWORD);
    const token = await server.token(USER, PASSWORD);
    view = await openLoopbackPage(browser, { width: 1280, height });
    view.page.setDefaultTimeout(timeout);
    return { server, browser, view, page: view.page, token, close };
  } catch (e) {
    await close();
    throw e;
  }
}
