/**
 * What every Maps SDK browser test stands on: the arcgisCore harness page bundled and served
 * offline (./arcgisSite.ts), a Strata test server, headless Chromium, and a publisher's
 * token; then pages on that site signed in to Strata, and the colour a screenshot shows at a
 * longitude/latitude (placed by the SDK's own projection).
 */
import type { Browser, Page } from "playwright-core";
import { type LoopbackPage, launchChromium, openLoopbackPage } from "../helpers/browser.js";
import { type TestServer, startTestServer } from "../helpers/server.js";
import { type SdkSite, bundleSdkPage, serveSdkPage } from "./arcgisSite.js";
import { MAP_SIZE } from "./bundle.js";
import { type Rgb, screenColours } from "./sstPicture.js";

export interface SdkFixture {
  readonly server: TestServer;
  readonly browser: Browser;
  readonly site: SdkSite;
  /** The publisher signed up at start. */
  readonly publisher: string;
  /** The publisher's token. */
  readonly token: string;
  close(): Promise<void>;
}

/** Bundle and serve the arcgisCore page, start Strata (with `flags`) and Chromium, and sign up `publisher`. */
export async function startSdkFixture(publisher: string, flags: Parameters<typeof startTestServer>[0] = {}): Promise<SdkFixture> {
  const [bundleDir, server, browser] = await Promise.all([bundleSdkPage("arcgisCore"), startTestServer(flags), launchChromium()]);
  const site = await serveSdkPage("arcgisCore", bundleDir);
  const close = async () => {
    await site.close();
    await browser.close();
    await server.close();
  };
  try {
    const token = await server.token(publisher, await server.addUser(publisher, "publisher"));
    return { server, browser, site, publisher, token, close };
  } catch (e) {
    await close();
    throw e;
  }
}

/** The harness page in a fresh loopback-only context, signed in as the publisher; `watch` sees the page before it loads. */
export async function openSignedInSdkPage(fixture: SdkFixture, watch?: (page: Page) => void): Promise<LoopbackPage> {
  const { server, site, token, publisher } = fixture;
  const view = await openLoopbackPage(fixture.browser, { width: MAP_SIZE + 40, height: MAP_SIZE + 200 });
  try {
    watch?.(view.page);
    await view.page.goto(site.url);
    await view.page.waitForFunction(() => window.arcgisHarness !== undefined);
    await view.page.evaluate(
      ([portal, services, t, user]) => window.arcgisHarness!.signIn(portal, services, t, user),
      [`${server.url}/sharing/rest`, `${server.url}/rest/services`, token, publisher],
    );
    return view;
  } catch (e) {
    await view.close();
    throw e;
  }
}

/** The colour a screenshot of the page's map shows at a longitude/latitude, placed by the harness's pixelAt. */
export function colourAt(page: Page, png: Uint8Array): (lon: number, lat: number) => Promise<Rgb> {
  const colourOf = screenColours(png, (place) => page.evaluate(([a, b]) => window.arcgisHarness!.pixelAt(a, b), place));
  return (lon, lat) => colourOf([lon, lat]);
}
