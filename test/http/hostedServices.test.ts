/**
 * Empty hosted services around a job (SPEC §12): isServiceNameAvailable, createService and
 * item update, their access rules, and every bad input answered with a 400 naming the
 * parameter (never a server path or a stack trace). The flow as the ArcGIS API for Python
 * runs it is pythonRasterAnalysis.test.ts.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type TestServer, startTestServer, waitForJob } from "../helpers/server.js";

let server: TestServer;
const tokens: Record<string, string> = {};

before(async () => {
  server = await startTestServer();
  for (const [user, role] of [
    ["ana", "publisher"],
    ["bob", "publisher"],
    ["uma", "user"],
  ] as const) {
    await server.addUser(user, role, `${user}-password-1`);
    tokens[user] = await server.token(user, `${user}-password-1`);
  }
});
after(() => server.close());

const AVAILABLE = "/sharing/rest/portals/self/isServiceNameAvailable";
const CREATE = "/sharing/rest/content/users/ana/createService";
const SUBSET = `/rest/services/System/RasterAnalysisTools/GPServer/SubsetMultidimensionalRaster`;
const SST = () => JSON.stringify({ url: `${server.url}/rest/services/Hosted/sst_climatology_4deg/ImageServer` });

async function create(name: string, user = "ana", path = CREATE, extra: Record<string, string> = {}) {
  return server.call(
    path,
    { createParameters: JSON.stringify({ name, capabilities: "Image, Metadata" }), outputType: "imageService", ...extra },
    { token: tokens[user] },
  );
}

/** A 400 whose details name `parameter` and say `why`, with nothing of the server in it. */
function assertRefused(body: { error?: { code: number; details: string[] } }, parameter: string, why: RegExp) {
  assert.equal(body.error?.code, 400, JSON.stringify(body));
  const text = body.error!.details.join(" ");
  assert.ok(text.includes(parameter), `${parameter} not named: ${text}`);
  assert.match(text, why);
  assert.ok(!text.includes(server.dataDir) && !/\n\s+at /.test(text), text);
}

describe("isServiceNameAvailable", () => {
  it("answers available for a free name, not for a taken one in any case, on self and on the portal's id", async () => {
    const portalId = (await server.call("/sharing/rest/portals/self", {}, { token: tokens.ana })).id;
    for (const path of [AVAILABLE, `/sharing/rest/portals/${portalId}/isServiceNameAvailable`]) {
      assert.deepEqual(await server.call(path, { name: "nobody_has_this", type: "Image Service" }, { token: tokens.ana }), {
        available: true,
      });
      const taken = await server.call(path, { name: "SST_Climatology_4deg", type: "imageService" }, { token: tokens.bob, method: "GET" });
      assert.deepEqual(taken, { available: false });
    }
    assert.equal(
      (
        await server.call(
          "/sharing/rest/portals/0123456789abcdef/isServiceNameAvailable",
          { name: "x", type: "Image Service" },
          { token: tokens.ana },
        )
      ).error?.code,
      404,
    );
  });

  it("needs a signed-in caller and refuses bad names and other service types", async () => {
    assert.equal((await server.call(AVAILABLE, { name: "x", type: "Image Service" })).error?.code, 499);
    assertRefused(await server.call(AVAILABLE, { type: "Image Service" }, { token: tokens.ana }), "name", /required/);
    assertRefused(
      await server.call(AVAILABLE, { name: "my output", type: "Image Service" }, { token: tokens.ana }),
      "name",
      /letters, digits or underscores/,
    );
    assertRefused(await server.call(AVAILABLE, { name: "x".repeat(121), type: "Image Service" }, { token: tokens.ana }), "name", /120/);
    assertRefused(await server.call(AVAILABLE, { name: "x" }, { token: tokens.ana }), "type", /Image Service.*missing/);
    assertRefused(
      await server.call(AVAILABLE, { name: "x", type: "Feature Service" }, { token: tokens.ana }),
      "type",
      /image services only/,
    );
  });
});

describe("createService", () => {
  it("creates an empty service owned by the caller, in a folder of theirs when the path names one", async () => {
    const created = await create("ana_empty");
    assert.equal(created.success, true, JSON.stringify(created));
    assert.match(created.itemId, /^[0-9a-f]{32}$/);
    assert.equal(created.serviceItemId, created.itemId);
    assert.equal(created.serviceurl, `${server.url}/rest/services/Hosted/ana_empty/ImageServer`);
    const item = await server.call(`/sharing/rest/content/items/${created.itemId}`, {}, { token: tokens.ana });
    assert.equal(item.owner, "ana");
    assert.equal(item.name, "ana_empty");
    assert.equal(item.type, "Image Service");
    assert.equal(item.access, "private");
    assert.equal(item.properties, null);
    const listed = await server.call("/rest/services/Hosted", {}, { token: tokens.ana });
    assert.ok(listed.services.some((s: { name: string }) => s.name === "Hosted/ana_empty"));

    const folder = (await server.call("/sharing/rest/content/users/ana/createFolder", { title: "outputs" }, { token: tokens.ana })).folder
      .id;
    const inFolder = await create("ana_in_folder", "ana", `/sharing/rest/content/users/ana/${folder}/createService`, {
      tags: "a, b",
      snippet: "s",
    });
    assert.equal(inFolder.success, true, JSON.stringify(inFolder));
    const folderItem = await server.call(`/sharing/rest/content/items/${inFolder.itemId}`, {}, { token: tokens.ana });
    assert.equal(folderItem.ownerFolder, folder);
    assert.deepEqual(folderItem.tags, ["a", "b"]);
    const updated = await server.call(
      `/sharing/rest/content/users/ana/${folder}/items/${inFolder.itemId}/update`,
      { title: "Outputs" },
      { token: tokens.ana },
    );
    assert.equal(updated.success, true, JSON.stringify(updated));

    // Deleting the item removes the empty service; its name is free again.
    const deleted = await server.call(
      `/sharing/rest/content/users/ana/${folder}/items/${inFolder.itemId}/delete`,
      {},
      { token: tokens.ana },
    );
    assert.equal(deleted.success, true);
    assert.equal((await server.call("/rest/services/Hosted/ana_in_folder/ImageServer", {}, { token: tokens.ana })).error?.code, 404);
    assert.equal((await server.call(AVAILABLE, { name: "ana_in_folder", type: "Image Service" }, { token: tokens.ana })).available, true);
  });

  it("is for publishers in their own content", async () => {
    assert.equal((await create("uma_service", "uma", "/sharing/rest/content/users/uma/createService")).error?.code, 403);
    assert.equal((await create("bob_in_ana", "bob")).error?.code, 403);
    assert.equal((await server.call(CREATE, { createParameters: '{"name":"x"}', outputType: "imageService" })).error?.code, 499);
  });

  it("refuses what it cannot create, naming the parameter", async () => {
    const bad: [Record<string, string>, string, RegExp][] = [
      [{ outputType: "imageService" }, "createParameters", /not valid JSON/],
      [{ createParameters: "{", outputType: "imageService" }, "createParameters", /not valid JSON/],
      [{ createParameters: "[]", outputType: "imageService" }, "createParameters", /JSON object/],
      [{ createParameters: "{}", outputType: "imageService" }, "createParameters", /name .*missing/],
      [{ createParameters: '{"name":"a-b"}', outputType: "imageService" }, "createParameters", /letters, digits or underscores/],
      [{ createParameters: '{"name":"ok","description":5}', outputType: "imageService" }, "createParameters", /description/],
      [{ createParameters: '{"name":"ok"}' }, "outputType", /imageService.*missing/],
      [{ createParameters: '{"name":"ok"}', outputType: "featureService" }, "outputType", /image services only/],
      [{ createParameters: '{"name":"ok"}', outputType: "imageService", isView: "true" }, "isView", /no view services/],
      [
        { createParameters: '{"name":"ok"}', outputType: "imageService", itemIdToCreate: "0".repeat(32) },
        "itemIdToCreate",
        /not supported/,
      ],
      [{ createParameters: '{"name":"SST_CLIMATOLOGY_4DEG"}', outputType: "imageService" }, "createParameters", /already taken/],
      [{ createParameters: '{"name":"ok"}', outputType: "imageService", snippet: "x".repeat(3000) }, "snippet", /2048/],
    ];
    for (const [params, parameter, why] of bad) assertRefused(await server.call(CREATE, params, { token: tokens.ana }), parameter, why);
    const bobFolder = (await server.call("/sharing/rest/content/users/bob/createFolder", { title: "mine" }, { token: tokens.bob })).folder
      .id;
    assertRefused(await create("ok", "ana", `/sharing/rest/content/users/ana/${bobFolder}/createService`), "folderId", /no folder/);
    assert.equal(
      (await server.call(AVAILABLE, { name: "ok", type: "Image Service" }, { token: tokens.ana })).available,
      true,
      "nothing was created",
    );
  });
});

describe("item update", () => {
  it("is the owner's (or an admin's): another user may not update, delete or fill the service", async () => {
    const { itemId, serviceurl } = await create("ana_guarded");
    for (const op of ["update", "delete"])
      assert.equal(
        (await server.call(`/sharing/rest/content/users/ana/items/${itemId}/${op}`, { title: "mine now" }, { token: tokens.bob })).error
          ?.code,
        403,
        op,
      );
    const submitted = await server.call(
      `${SUBSET}/submitJob`,
      {
        inputMultidimensionalRaster: SST(),
        outputName: JSON.stringify({ serviceProperties: { name: "ana_guarded", serviceUrl: serviceurl }, itemProperties: { itemId } }),
      },
      { token: tokens.bob },
    );
    assert.equal(submitted.error?.code, 403, JSON.stringify(submitted));
    assert.equal((await server.call(`/sharing/rest/content/items/${itemId}`, {}, { token: tokens.ana })).title, "ana_guarded");
  });

  it("refuses what would change what the item is, and bad values, naming the parameter", async () => {
    const { itemId } = await create("ana_fields");
    const update = (params: Record<string, string>) =>
      server.call(`/sharing/rest/content/users/ana/items/${itemId}/update`, params, { token: tokens.ana });
    assertRefused(await update({ properties: "{" }), "properties", /not valid JSON/);
    assertRefused(await update({ properties: "[1]" }), "properties", /JSON object/);
    assertRefused(await update({ properties: JSON.stringify({ big: "x".repeat(70_000) }) }), "properties", /64 KiB/);
    assertRefused(await update({ url: "http://elsewhere.example/ImageServer" }), "url", /cannot be changed/);
    assertRefused(await update({ type: "Feature Service" }), "type", /cannot be changed/);
    assertRefused(await update({ name: "renamed" }), "name", /cannot be changed/);
    assertRefused(await update({ text: "{}" }), "text", /cannot be replaced/);
    assertRefused(await update({ title: "", clearEmptyFields: "true" }), "title", /cannot be cleared/);
    assertRefused(await update({ tags: '["a", 1]' }), "tags", /list of strings/);
    assertRefused(await update({ title: "x".repeat(300) }), "title", /256/);

    // Empty values leave fields alone, unless clearEmptyFields; lists as JSON or comma text.
    assert.equal((await update({ description: "d", tags: '["x","y"]', typeKeywords: "Raster, Hosted Service" })).success, true);
    assert.equal((await update({ description: "", tags: "" })).success, true);
    let item = await server.call(`/sharing/rest/content/items/${itemId}`, {}, { token: tokens.ana });
    assert.equal(item.description, "d");
    assert.deepEqual(item.tags, ["x", "y"]);
    assert.deepEqual(item.typeKeywords, ["Raster", "Hosted Service"]);
    assert.equal((await update({ description: "", tags: "", clearEmptyFields: "true" })).success, true);
    item = await server.call(`/sharing/rest/content/items/${itemId}`, {}, { token: tokens.ana });
    assert.equal(item.description, "");
    assert.deepEqual(item.tags, []);
  });

  it("keeps a client's properties apart from the data: they can neither drop nor repoint it", { timeout: 60_000 }, async () => {
    const { itemId, serviceurl } = await create("ana_filled");
    const outputName = JSON.stringify({ serviceProperties: { name: "ana_filled", serviceUrl: serviceurl }, itemProperties: { itemId } });
    const submitted = await server.call(`${SUBSET}/submitJob`, { inputMultidimensionalRaster: SST(), outputName }, { token: tokens.ana });
    const job = await waitForJob(server, "SubsetMultidimensionalRaster", submitted.jobId, tokens.ana);
    assert.equal(job.jobStatus, "esriJobSucceeded", JSON.stringify(job.messages));
    const update = (properties: string) =>
      server.call(`/sharing/rest/content/users/ana/items/${itemId}/update`, { properties }, { token: tokens.ana });
    assert.equal((await update(JSON.stringify({ datasetId: "01J00000000000000000000000", bytes: 0, jobId: "j" }))).success, true);
    const info = await server.call("/rest/services/Hosted/ana_filled/ImageServer", {}, { token: tokens.ana });
    assert.equal(info.hasMultidimensions, true, JSON.stringify(info));
    let item = await server.call(`/sharing/rest/content/items/${itemId}`, {}, { token: tokens.ana });
    assert.deepEqual(item.properties, { datasetId: "01J00000000000000000000000", bytes: 0, jobId: "j" });
    assert.equal((await update("null")).success, true);
    item = await server.call(`/sharing/rest/content/items/${itemId}`, {}, { token: tokens.ana });
    assert.equal(item.properties, null);
    assert.equal((await server.call("/rest/services/Hosted/ana_filled/ImageServer", {}, { token: tokens.ana })).hasMultidimensions, true);
  });
});

describe("an outputName naming a pre-created service", () => {
  it("must name it the same way by itemId, serviceUrl and name", async () => {
    const { itemId, serviceurl } = await create("ana_target");
    const submit = (descriptor: unknown) =>
      server.call(
        `${SUBSET}/submitJob`,
        { inputMultidimensionalRaster: SST(), outputName: JSON.stringify(descriptor) },
        { token: tokens.ana },
      );
    assertRefused(
      await submit({ serviceProperties: { name: "another_name", serviceUrl: serviceurl }, itemProperties: { itemId } }),
      "outputName",
      /serviceProperties\.name names the service another_name, but the item to update is the service ana_target/,
    );
    assertRefused(
      await submit({
        serviceProperties: { name: "ana_target", serviceUrl: `${server.url}/rest/services/Hosted/sst_climatology_4deg/ImageServer` },
        itemProperties: { itemId },
      }),
      "outputName",
      /serviceUrl names the service sst_climatology_4deg/,
    );
    assertRefused(await submit({ itemProperties: { itemId: "0".repeat(32) } }), "outputName", /does not exist/);
  });
});
