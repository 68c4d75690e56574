/**
 * Issue 15: an upload or a publish named by `uploadId` says what it is doing, then how it
 * ended, at `content/users/<u>/uploads/<uploadId>/status` (its owner's only); a bad id is a
 * 400 naming uploadId, an unknown one a 404. The phases seen while the requests run are
 * recorded by polling as fast as the server answers; the ends are certain.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { type TestServer, startTestServer } from "../helpers/server.js";

const SST = new URL("../../samples/sst_climatology_4deg.nc", import.meta.url).pathname;
let server: TestServer;
let token: string;
let boToken: string;

before(async () => {
  server = await startTestServer({ "no-samples": true });
  await server.addUser("ana", "publisher", "ana-password-1");
  await server.addUser("bo", "publisher", "bo-password-1");
  token = await server.token("ana", "ana-password-1");
  boToken = await server.token("bo", "bo-password-1");
});
after(() => server?.close());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers
async function post(path: string, fields: Record<string, string | Blob>): Promise<any> {
  const form = new FormData();
  for (const [k, v] of Object.entries({ f: "json", token, ...fields })) form.set(k, v);
  return (await fetch(`${server.url}${path}`, { method: "POST", body: form })).json();
}

const status = (uploadId: string, auth = token, user = "ana") =>
  server.call(`/sharing/rest/content/users/${user}/uploads/${uploadId}/status`, {}, { token: auth, method: "GET" });

/** The request's answer, and every distinct status message seen while it ran. */
async function watched(uploadId: string, request: Promise<unknown>): Promise<{ answer: unknown; seen: string[] }> {
  const seen: string[] = [];
  let over = false;
  const answer = request.finally(() => (over = true));
  while (!over) {
    const s = await status(uploadId);
    const text = s.error ? "" : `${s.status}: ${s.statusMessage}`;
    if (text && seen[seen.length - 1] !== text) seen.push(text);
  }
  return { answer: await answer, seen };
}

describe("upload status", () => {
  it("addItem and publish say their phases and how they ended", async () => {
    const file = new Blob([await readFile(SST)]);
    const added = await watched(
      "add-sst-0001",
      post("/sharing/rest/content/users/ana/addItem", { file, filename: "sst.nc", uploadId: "add-sst-0001" }),
    );
    const itemId = (added.answer as { id: string }).id;
    assert.ok(itemId, JSON.stringify(added.answer));
    assert.deepEqual(await status("add-sst-0001"), { uploadId: "add-sst-0001", status: "completed", statusMessage: "Added sst.nc" });
    for (const s of added.seen.slice(0, -1))
      assert.match(s, /^processing: (Checking sst\.nc: reading its variables and dimensions|Adding the item sst\.nc)$/);

    const published = await watched(
      "publish-sst-1",
      post("/sharing/rest/content/users/ana/publish", {
        itemId,
        publishParameters: JSON.stringify({ name: "sst_status" }),
        uploadId: "publish-sst-1",
      }),
    );
    assert.ok((published.answer as { services?: unknown[] }).services?.length, JSON.stringify(published.answer));
    assert.deepEqual(await status("publish-sst-1"), {
      uploadId: "publish-sst-1",
      status: "completed",
      statusMessage: "Published sst_status",
    });
    for (const s of published.seen.slice(0, -1))
      assert.match(s, /^processing: (Converting sst\.nc to Zarr and computing its statistics|Publishing the image service sst_status)$/);
  });

  it("a file that is no raster ends failed, saying why", async () => {
    const answer = await post("/sharing/rest/content/users/ana/addItem", {
      file: new Blob(["not a raster"]),
      filename: "x.nc",
      uploadId: "bad-file-01",
    });
    assert.equal(answer.error?.code, 400);
    const s = await status("bad-file-01");
    assert.equal(s.status, "failed");
    assert.match(s.statusMessage, /x\.nc is not a raster Strata can read/);
  });

  it("refuses a bad uploadId, another user, and an id it does not know", async () => {
    const bad = await post("/sharing/rest/content/users/ana/addItem", { file: new Blob(["x"]), filename: "x.nc", uploadId: "no/good" });
    assert.equal(bad.error?.code, 400);
    assert.match(bad.error.details.join(" "), /^uploadId must be/);
    assert.equal((await status("bad-id!")).error?.code, 400);
    assert.equal((await status("add-sst-0001", boToken)).error?.code, 403);
    assert.equal((await status("add-sst-0001", boToken, "bo")).error?.code, 404);
  });
});
