/**
 * Bounded work and what images belong to (issue 10 §2, §4): when a lane's queue is full the
 * server answers 503 with Retry-After at once (no hang) and serves the rest; an exported
 * image is served only through the service that drew it, under its access rules, and a
 * private one is never publicly cacheable.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { type TestServer, startTestServer } from "../helpers/server.js";

const NAVY = new URL("../../samples/navy_winds_10deg.nc", import.meta.url).pathname;
let server: TestServer;
let token = "";

before(async () => {
  // One quick thread and one bulk thread; the bulk lane holds 4 waiting requests.
  server = await startTestServer({ "work-threads": "1", "work-queue": "16" });
  await server.addUser("ana", "publisher", "ana-password-1");
  token = await server.token("ana", "ana-password-1");
});
after(async () => {
  await server.close();
});

const hosted = (name: string) => `${server.url}/rest/services/Hosted/${name}/ImageServer`;

describe("a full work queue", () => {
  it("answers 503 with Retry-After for what does not fit, and draws the rest", async () => {
    // 2100² is past the bulk threshold (2048²): 1 running + 4 waiting fit, the rest do not.
    const answers = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const r = await fetch(
          `${hosted("sst_climatology_4deg")}/exportImage?bbox=${-180 + i},-90,${180 + i},90&size=2100,2100&f=image&token=${token}`,
        );
        const body = r.headers.get("content-type")?.startsWith("image/") ? undefined : ((await r.json()) as { error?: { code: number } });
        return { status: r.status, retryAfter: r.headers.get("retry-after"), code: body?.error?.code };
      }),
    );
    const busy = answers.filter((a) => a.status === 503);
    const drawn = answers.filter((a) => a.status === 200);
    assert.ok(busy.length >= 1, JSON.stringify(answers));
    assert.equal(busy.length + drawn.length, answers.length, JSON.stringify(answers));
    for (const a of busy) {
      assert.equal(a.code, 503);
      assert.ok(Number(a.retryAfter) >= 1, JSON.stringify(a));
    }
  });
});

describe("exported images", () => {
  it("are served only through their own service, privately when the service is private", async () => {
    const form = new FormData();
    for (const [k, v] of Object.entries({ f: "json", token, filename: "navy.nc", title: "private winds" })) form.set(k, v);
    form.set("file", new Blob([new Uint8Array(await readFile(NAVY))]));
    const added = (await (await fetch(`${server.url}/sharing/rest/content/users/ana/addItem`, { method: "POST", body: form })).json()) as {
      id: string;
    };
    const published = await server.call(
      "/sharing/rest/content/users/ana/publish",
      { itemId: added.id, publishParameters: JSON.stringify({ name: "private_winds" }) },
      { token },
    );
    assert.ok(published.services?.[0]?.serviceurl, JSON.stringify(published));
    const exported = await server.call(`${hosted("private_winds")}/exportImage`, { bbox: "-180,-90,180,90", size: "64,32" }, { token });
    const file = String(exported.href).split("/").pop();
    const own = await fetch(`${hosted("private_winds")}/output/${file}?token=${token}`);
    assert.equal(own.status, 200);
    assert.match(own.headers.get("cache-control") ?? "", /^private/);
    const anonymous = await fetch(`${hosted("private_winds")}/output/${file}`);
    assert.notEqual(anonymous.headers.get("content-type"), "image/png");
    const elsewhere = await fetch(`${hosted("sst_climatology_4deg")}/output/${file}?token=${token}&f=json`);
    assert.notEqual(elsewhere.headers.get("content-type"), "image/png");
    assert.equal(((await elsewhere.json()) as { error?: { code: number } }).error?.code, 404);
  });
});
