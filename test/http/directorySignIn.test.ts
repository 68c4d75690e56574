/**
 * Signing in to the services directory in a browser (issue 15): without --allow-anonymous
 * every page needs a token, so the directory has a sign-in (rest/login) that keeps a token in
 * an HttpOnly, SameSite=Strict cookie, usable only from the server's own pages.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type TestServer, startTestServer } from "../helpers/server.js";

let server: TestServer;
let path = "";
before(async () => {
  server = await startTestServer();
  path = new URL(server.url).pathname;
});
after(() => server.close());

const OWN = { "sec-fetch-site": "same-origin" };

async function signIn(password: string, redirect?: string): Promise<Response> {
  const body = new URLSearchParams({ username: "admin", password, ...(redirect === undefined ? {} : { redirect }) });
  return fetch(`${server.url}/rest/login`, {
    method: "POST",
    body,
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(server.url).origin, ...OWN },
  });
}

function cookieOf(response: Response): string {
  const set = response.headers.get("set-cookie") ?? "";
  return set.split(";")[0];
}

describe("the services directory's sign-in", () => {
  it("a page that needs a token links to the sign-in, coming back to it (without any token in the link)", async () => {
    const r = await fetch(`${server.url}/rest/services/Hosted?token=bad`);
    assert.equal(r.status, 401);
    const page = await r.text();
    const back = encodeURIComponent(`${path}/rest/services/Hosted?f=html`);
    assert.ok(page.includes(`href="${path}/rest/login?redirect=${back}"`), page);
    assert.ok(page.includes(">Sign in</a>"), "the header's link");
    const other = await (await fetch(`${server.url}/rest/services`)).text();
    assert.match(other, /<span><a href="[^"]*\/rest\/login\?redirect=[^"]*">Sign in<\/a><\/span>/);
  });

  it("shows a form, refuses a wrong password on it", async () => {
    const form = await (await fetch(`${server.url}/rest/login?redirect=${encodeURIComponent(`${path}/rest/services/Hosted`)}`)).text();
    assert.match(form, /<form action="[^"]*\/rest\/login" method="POST">/);
    assert.match(form, /name="password" type="password"/);
    assert.ok(form.includes(`value="${path}/rest/services/Hosted"`));
    const wrong = await signIn("not-the-password");
    assert.equal(wrong.status, 200);
    assert.equal(wrong.headers.get("set-cookie"), null);
    assert.match(await wrong.text(), /Invalid username or password\./);
  });

  it("signs in: an HttpOnly, SameSite=Strict cookie for /rest/ only, then back to the page asked for", async () => {
    const r = await signIn(server.adminPassword, `${path}/rest/services/Hosted?f=html`);
    assert.equal(r.status, 303);
    assert.equal(r.headers.get("location"), `${path}/rest/services/Hosted?f=html`);
    const set = r.headers.get("set-cookie")!;
    assert.match(set, /^strata_directory_token=[\w-]{20,}; /);
    for (const attribute of [`Path=${path}/rest/`, "HttpOnly", "SameSite=Strict"]) assert.ok(set.includes(attribute), set);
    const cookie = cookieOf(r);

    const page = await fetch(`${server.url}/rest/services/Hosted`, { headers: { cookie, ...OWN } });
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /navy_winds_10deg/);
    assert.match(html, />Sign out<\/a>/);
    const json = await (await fetch(`${server.url}/rest/services/Hosted?f=json`, { headers: { cookie } })).json();
    assert.ok(
      json.services.some((s: { name: string }) => s.name === "Hosted/navy_winds_10deg"),
      "also when typed in (no Sec-Fetch-Site)",
    );
  });

  it("the cookie is worth nothing to another site's page or script", async () => {
    const cookie = cookieOf(await signIn(server.adminPassword));
    for (const headers of [
      { cookie, "sec-fetch-site": "cross-site" } as Record<string, string>,
      { cookie, "sec-fetch-site": "same-site" },
      { cookie, origin: "http://evil.example" },
    ]) {
      const r = await fetch(`${server.url}/rest/services/Hosted?f=json`, { headers });
      assert.equal((await r.json()).error?.code, 499, JSON.stringify(headers));
    }
    const elsewhere = await fetch(`${server.url}/rest/login`, {
      method: "POST",
      body: new URLSearchParams({ username: "admin", password: server.adminPassword }),
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://evil.example" },
    });
    assert.equal(elsewhere.headers.get("set-cookie"), null, "no sign-in from another site's form");
  });

  it("goes back only to this server's pages", async () => {
    for (const redirect of ["http://evil.example/", "//evil.example/x", `${path}/sharing/rest/portals/self`, `${path}/rest/\\evil`]) {
      const r = await signIn(server.adminPassword, redirect);
      assert.equal(r.headers.get("location"), `${path}/rest/services`, redirect);
    }
  });

  it("signs out: the cookie is cleared", async () => {
    const r = await fetch(`${server.url}/rest/logout`, { redirect: "manual" });
    assert.equal(r.status, 303);
    assert.match(r.headers.get("set-cookie")!, /^strata_directory_token=; Path=[^;]*\/rest\/; Max-Age=0; HttpOnly; SameSite=Strict/);
  });
});
