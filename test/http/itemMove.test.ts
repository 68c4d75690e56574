/**
 * Moving an item between its owner's folders (`content/users/<u>/items/<id>/move`, as
 * ArcGIS answers it): into a folder, back to the root with "/", refused for another user's
 * folder, without a folder, and by anyone but the owner; a folder holding the item cannot be
 * deleted until the item has left it.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type TestServer, startTestServer } from "../helpers/server.js";

let server: TestServer;
let ana: string;
let bob: string;
let itemId: string;

const content = (user: string) => `/sharing/rest/content/users/${user}`;

before(async () => {
  server = await startTestServer({ "no-samples": true });
  await server.addUser("ana", "publisher", "ana-password-1");
  await server.addUser("bob", "publisher", "bob-password-1");
  ana = await server.token("ana", "ana-password-1");
  bob = await server.token("bob", "bob-password-1");
  const created = await server.call(
    `${content("ana")}/createService`,
    { createParameters: JSON.stringify({ name: "ana_empty" }), outputType: "imageService" },
    { token: ana },
  );
  assert.equal(created.success, true, JSON.stringify(created));
  itemId = created.itemId;
});

after(() => server?.close());

describe("items/<id>/move", () => {
  it("moves an item into a folder and back to the root", async () => {
    const folder = (await server.call(`${content("ana")}/createFolder`, { title: "Winds" }, { token: ana })).folder.id as string;
    const moved = await server.call(`${content("ana")}/items/${itemId}/move`, { folder }, { token: ana });
    assert.deepEqual(moved, { success: true, itemId, owner: "ana", folder });
    const inFolder = await server.call(`${content("ana")}/${folder}`, {}, { token: ana });
    assert.deepEqual(
      inFolder.items.map((i: { id: string }) => i.id),
      [itemId],
    );
    const root = await server.call(content("ana"), {}, { token: ana });
    assert.ok(!root.items.some((i: { id: string }) => i.id === itemId), "the item left the root");

    const refused = await server.call(`${content("ana")}/folders/${folder}/delete`, {}, { token: ana });
    assert.equal(refused.error?.code, 400, JSON.stringify(refused));
    assert.match(refused.error.details.join(" "), /holds 1 item/);

    const back = await server.call(`${content("ana")}/${folder}/items/${itemId}/move`, { folder: "/" }, { token: ana });
    assert.equal(back.folder, "");
    assert.equal((await server.call(`/sharing/rest/content/items/${itemId}`, {}, { token: ana })).ownerFolder, null);
    assert.equal((await server.call(`${content("ana")}/folders/${folder}/delete`, {}, { token: ana })).success, true);
  });

  it("refuses another user's folder, a missing folder parameter and a caller who is not the owner", async () => {
    const bobs = (await server.call(`${content("bob")}/createFolder`, { title: "Bob's" }, { token: bob })).folder.id as string;
    const theirs = await server.call(`${content("ana")}/items/${itemId}/move`, { folder: bobs }, { token: ana });
    assert.equal(theirs.error?.code, 400);
    assert.match(theirs.error.details.join(" "), /folderId|no folder/);
    assert.doesNotMatch(JSON.stringify(theirs), /Bob's/, "another user's folder title is not told");

    const missing = await server.call(`${content("ana")}/items/${itemId}/move`, {}, { token: ana });
    assert.equal(missing.error?.code, 400);
    assert.match(missing.error.details.join(" "), /^folder is required/);

    const notOwner = await server.call(`${content("bob")}/items/${itemId}/move`, { folder: bobs }, { token: bob });
    assert.ok([403, 404].includes(notOwner.error?.code), JSON.stringify(notOwner));
    assert.equal((await server.call(`/sharing/rest/content/items/${itemId}`, {}, { token: ana })).ownerFolder, null);
  });
});
