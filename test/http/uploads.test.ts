/**
 * Adding data through the portal: addItem takes a NetCDF file or a zipped Zarr store as a
 * raster item (usable as a task input by itemId), publish makes a hosted image service of
 * it that draws; bad files, zips with no store or escaping entries, users without the
 * publisher role and bad service names are refused naming the parameter, leaving nothing;
 * search finds what the caller may read.
 */
import assert from "node:assert/strict";
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { zipSync } from "fflate";
import { openCube } from "../../src/io/open.js";
import { writeSubset } from "../../src/tasks/subset.js";
import { wholeCubePlan } from "../../src/tasks/plan.js";
import { writeNetcdf3 } from "../helpers/netcdf3Writer.js";
import { type TestServer, startTestServer, waitForJob } from "../helpers/server.js";

const NAVY = new URL("../../samples/navy_winds_10deg.nc", import.meta.url).pathname;
let server: TestServer;
let token: string;
let userToken: string;

before(async () => {
  server = await startTestServer({ "allow-anonymous": true });
  await server.addUser("ana", "publisher", "ana-password-1");
  await server.addUser("bo", "user", "bo-password-1");
  token = await server.token("ana", "ana-password-1");
  userToken = await server.token("bo", "bo-password-1");
});
after(async () => {
  await server.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers
async function post(path: string, fields: Record<string, string | Blob>, auth = token): Promise<any> {
  const form = new FormData();
  for (const [k, v] of Object.entries({ f: "json", token: auth, ...fields })) form.set(k, v);
  return (await fetch(`${server.url}${path}`, { method: "POST", body: form })).json();
}
const datasets = async () => (await readdir(join(server.dataDir, "rasters"))).filter((n) => !n.startsWith(".")).sort();
const ADD = "/sharing/rest/content/users/ana/addItem";
const PUBLISH = "/sharing/rest/content/users/ana/publish";

describe("addItem and publish", () => {
  let itemId = "";

  it("a NetCDF file becomes a raster item, usable by itemId as a task input", async () => {
    const bytes = await readFile(NAVY);
    const r = await post(ADD, { file: new Blob([bytes]), filename: "navy.nc", title: "Navy winds upload", tags: "wind,upload" });
    assert.equal(r.success, true, JSON.stringify(r));
    itemId = r.id;
    const item = await server.call(`/sharing/rest/content/items/${itemId}`, { token });
    assert.equal(item.type, "NetCDF");
    assert.equal(item.title, "Navy winds upload");
    const job = await server.call(
      `${server.tools}/SubsetMultidimensionalRaster/submitJob`,
      { inputMultidimensionalRaster: JSON.stringify({ itemId }), outputName: "from_upload", variables: "VWND" },
      { token },
    );
    assert.equal((await waitForJob(server, "SubsetMultidimensionalRaster", job.jobId, token)).jobStatus, "esriJobSucceeded");
  });

  it("publish makes a hosted image service of it that draws", async () => {
    const r = await post(PUBLISH, { itemId, publishParameters: JSON.stringify({ name: "navy_upload" }) });
    assert.match(r.services?.[0]?.serviceurl ?? "", /\/rest\/services\/Hosted\/navy_upload\/ImageServer$/, JSON.stringify(r));
    const md = await server.call("/rest/services/Hosted/navy_upload/ImageServer/multidimensionalInfo", { token });
    assert.deepEqual(
      md.multidimensionalInfo.variables.map((v: { name: string }) => v.name),
      ["UWND", "VWND"],
    );
    const image = await fetch(`${r.services[0].serviceurl}/exportImage?${new URLSearchParams({ f: "image", format: "png", token })}`);
    assert.equal(image.headers.get("content-type"), "image/png");
  });

  it("the item's description says what of the file is not read (after the description given)", async () => {
    const path = join(server.dataDir, "member.nc");
    await writeNetcdf3(path, {
      dims: [
        { name: "member", size: 2 },
        { name: "lat", size: 1 },
        { name: "lon", size: 2 },
      ],
      vars: [
        { name: "lat", dims: ["lat"], type: "double", attrs: { units: "degrees_north" }, data: [0] },
        { name: "lon", dims: ["lon"], type: "double", attrs: { units: "degrees_east" }, data: [0, 1] },
        { name: "t", dims: ["member", "lat", "lon"], type: "float", data: [1, 2, 3, 4] },
      ],
    });
    const r = await post(ADD, { file: new Blob([await readFile(path)]), filename: "member.nc", description: "Ensemble." });
    assert.equal(r.success, true, JSON.stringify(r));
    const item = await server.call(`/sharing/rest/content/items/${r.id}`, { token });
    assert.match(item.description, /^Ensemble\.\n\nNot read by Strata:\n- dimension member has no coordinate variable .*indices 0\.\.1$/);
  });

  it("a zipped Zarr store (inside a folder of the zip) becomes a raster item", async () => {
    const cube = await openCube(NAVY);
    const zarr = join(server.dataDir, "upload.zarr");
    await writeSubset(cube, wholeCubePlan(cube), zarr);
    await cube.close();
    const files: Record<string, Uint8Array> = {};
    const walk = async (dir: string, prefix: string): Promise<void> => {
      for (const e of await readdir(dir, { withFileTypes: true })) {
        if (e.isDirectory()) await walk(join(dir, e.name), `${prefix}${e.name}/`);
        else files[`${prefix}${e.name}`] = await readFile(join(dir, e.name));
      }
    };
    await walk(zarr, "winds.zarr/");
    const r = await post(ADD, { file: new Blob([new Uint8Array(zipSync(files))]), filename: "winds.zarr.zip", title: "Zipped winds" });
    assert.equal(r.success, true, JSON.stringify(r));
    const item = await server.call(`/sharing/rest/content/items/${r.id}`, { token });
    assert.equal(item.type, "Zarr");
  });

  for (const [what, fields, parameter] of [
    ["no file", {}, "file"],
    ["a file that is no raster", { file: new Blob(["hello, not a raster"]), filename: "x.nc" }, "file"],
    [
      "a zip with no Zarr store",
      { file: new Blob([new Uint8Array(zipSync({ "readme.txt": new TextEncoder().encode("hi") }))]), filename: "x.zip" },
      "file",
    ],
    [
      "a zip whose entry escapes its folder",
      {
        file: new Blob([new Uint8Array(zipSync({ "zarr.json": new TextEncoder().encode("{}"), "../evil": new Uint8Array(1) }))]),
        filename: "x.zip",
      },
      "file",
    ],
  ] as const) {
    it(`refuses ${what} (400 naming ${parameter}) and keeps nothing`, async () => {
      const before = await datasets();
      const r = await post(ADD, fields as Record<string, string | Blob>);
      assert.equal(r.error?.code, 400, JSON.stringify(r));
      assert.match(r.error.details.join(" "), new RegExp(parameter));
      assert.deepEqual(await datasets(), before);
      assert.deepEqual(await readdir(join(server.dataDir, "rasters", ".pending")), []);
    });
  }

  it("refuses a user without the publisher role, and another user's content", async () => {
    const bytes = new Blob([await readFile(NAVY)]);
    const r = await post("/sharing/rest/content/users/bo/addItem", { file: bytes, filename: "n.nc" }, userToken);
    assert.equal(r.error?.code, 403, JSON.stringify(r));
    const other = await post("/sharing/rest/content/users/bo/addItem", { file: bytes, filename: "n.nc" });
    assert.equal(other.error?.code, 403, JSON.stringify(other));
  });

  it("publish refuses bad names, taken names and items that are not uploaded rasters", async () => {
    const bad = await post(PUBLISH, { itemId, publishParameters: JSON.stringify({ name: "has space" }) });
    assert.equal(bad.error?.code, 400);
    assert.match(
      bad.error.details.join(" "),
      /^publishParameters\.name must be 1 to 120 letters, digits or underscores \(got "has space"\)$/,
    );
    const taken = await post(PUBLISH, { itemId, publishParameters: JSON.stringify({ name: "navy_upload" }) });
    assert.equal(taken.error?.code, 400, JSON.stringify(taken));
    const service = await server.call("/rest/services/Hosted/navy_upload/ImageServer", { token });
    assert.ok(service.name);
    const search = await server.call("/sharing/rest/search", { q: "navy_upload", token });
    const serviceItem = search.results.find((i: { type: string }) => i.type === "Image Service");
    const notRaster = await post(PUBLISH, { itemId: serviceItem.id, publishParameters: JSON.stringify({ name: "again" }) });
    assert.equal(notRaster.error?.code, 400);
    assert.match(notRaster.error.details.join(" "), /itemId/);
  });
});

describe("search", () => {
  it("finds items by words of their title, tags or type, pages them, and shows anonymous callers public items only", async () => {
    const mine = await server.call("/sharing/rest/search", { q: "upload", token });
    assert.ok(mine.results.some((i: { title: string }) => i.title === "Navy winds upload"));
    const none = await server.call("/sharing/rest/search", { q: "upload nosuchword", token });
    assert.equal(none.total, 0);
    // Every hit says "upload" in its title, tags or service name (the published service keeps the title).
    assert.ok(
      mine.results.every((i: { title: string; tags: string[]; url: string | null }) =>
        `${i.title} ${i.tags.join(" ")} ${i.url ?? ""}`.toLowerCase().includes("upload"),
      ),
    );
    const page = await server.call("/sharing/rest/search", { num: "1", token });
    assert.equal(page.results.length, 1);
    assert.equal(page.nextStart, 2);
    const anonymous = await server.call("/sharing/rest/search", { num: "100" });
    assert.ok(anonymous.results.length >= 2);
    assert.ok(
      anonymous.results.every((i: { access: string }) => i.access === "public"),
      JSON.stringify(anonymous.results.map((i: { access: string }) => i.access)),
    );
    const bad = await server.call("/sharing/rest/search", { num: "1000" });
    assert.equal(bad.error?.code, 400);
  });
});
