/** Portal items and folders: create, read, update, share, move, delete, list by viewer. */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { InvalidInputError, NotFoundError } from "../../src/cube/errors.js";
import { canRead, type Access, type Viewer } from "../../src/portal/access.js";
import { createFolder, deleteFolder, getFolder, listFolders } from "../../src/portal/folders.js";
import { PORTAL_ID_PATTERN } from "../../src/portal/ids.js";
import {
  createItem,
  deleteItem,
  getItem,
  getItemByServiceName,
  listItems,
  shareItem,
  updateItem,
  type Item,
} from "../../src/portal/items.js";
import { createUser } from "../../src/portal/users.js";
import type { MetadataDb } from "../../src/store/metadataDb.js";
import { BACKENDS, tempDb } from "./tempDb.js";

const PASSWORD = "correct horse battery";
const ALICE: Viewer = { username: "Alice", role: "publisher" };
const BOB: Viewer = { username: "bob", role: "user" };
const ROOT: Viewer = { username: "root", role: "admin" };

function parameter(name: string, type: new (...args: never[]) => Error = InvalidInputError) {
  return (e: unknown) => {
    assert.ok(e instanceof type, `expected ${type.name}, got ${String(e)}`);
    assert.equal((e as InvalidInputError).parameter, name);
    return true;
  };
}

for (const backend of BACKENDS)
  describe(`portal items (${backend})`, () => {
    let db: MetadataDb;

    before(async () => {
      ({ db } = await tempDb(backend));
      await createUser(db, { username: "root", password: PASSWORD, role: "admin" });
      await createUser(db, { username: "Alice", password: PASSWORD, role: "publisher" });
      await createUser(db, { username: "bob", password: PASSWORD, role: "user" });
    });

    describe("folders", () => {
      it("creates, lists and finds folders with unique titles per owner", async () => {
        const f = await createFolder(db, "alice", "  Sea temperature ");
        assert.match(f.id, PORTAL_ID_PATTERN);
        assert.deepEqual({ owner: f.owner, title: f.title }, { owner: "Alice", title: "Sea temperature" });
        await assert.rejects(createFolder(db, "ALICE", "sea TEMPERATURE"), parameter("title"));
        const other = await createFolder(db, "bob", "Sea temperature"); // another owner may reuse it
        assert.deepEqual(await getFolder(db, f.id), f);
        assert.deepEqual(
          (await listFolders(db, "Alice")).map((x) => x.id),
          [f.id],
        );
        assert.deepEqual(
          (await listFolders(db, "bob")).map((x) => x.id),
          [other.id],
        );
        for (const title of ["", "   ", "a/b", "a\\b", "tab\there", "x".repeat(256)])
          await assert.rejects(createFolder(db, "alice", title), parameter("title"));
        await assert.rejects(createFolder(db, "nobody", "x"), parameter("owner", NotFoundError));
        assert.equal(await getFolder(db, "not-an-id"), undefined);
      });

      it("deletes only empty folders", async () => {
        const folder = await createFolder(db, "alice", "To delete");
        const item = await createItem(db, "alice", { title: "In folder", folderId: folder.id });
        await assert.rejects(deleteFolder(db, folder.id), (e: unknown) => e instanceof InvalidInputError && /holds 1 item/.test(e.message));
        await updateItem(db, item.id, { folderId: null });
        await deleteFolder(db, folder.id);
        assert.equal(await getFolder(db, folder.id), undefined);
        await assert.rejects(deleteFolder(db, folder.id), parameter("folderId", NotFoundError));
        await deleteItem(db, item.id);
      });
    });

    describe("items", () => {
      it("creates an item with defaults and reads it back", async () => {
        const item = await createItem(db, "ALICE", {
          title: "SST anomaly",
          tags: ["sst", " sst ", "", "anomaly"],
          typeKeywords: ["Multidimensional"],
          serviceName: "sst_anomaly",
          url: "http://127.0.0.1:8080/arcgis/rest/services/Hosted/sst_anomaly/ImageServer",
          properties: { datasetId: "01JABCDEF" },
        });
        assert.match(item.id, PORTAL_ID_PATTERN);
        assert.equal(item.owner, "Alice");
        assert.equal(item.type, "Image Service");
        assert.equal(item.access, "private");
        assert.equal(item.folderId, null);
        assert.deepEqual(item.tags, ["sst", "anomaly"]);
        assert.deepEqual(item.properties, { datasetId: "01JABCDEF" });
        assert.equal(item.description, "");
        assert.equal(item.created, item.modified);
        assert.deepEqual(await getItem(db, item.id), item);
        assert.deepEqual(await getItemByServiceName(db, "SST_ANOMALY"), item);
        assert.equal(await getItem(db, "0".repeat(32)), undefined);
        assert.equal(await getItem(db, "../../etc/passwd"), undefined);
      });

      it("keeps service names unique regardless of case", async () => {
        await createItem(db, "alice", { title: "one", serviceName: "Unique_Name" });
        await assert.rejects(createItem(db, "bob", { title: "two", serviceName: "unique_name" }), parameter("serviceName"));
        const third = await createItem(db, "bob", { title: "three" });
        await assert.rejects(updateItem(db, third.id, { serviceName: "UNIQUE_NAME" }), parameter("serviceName"));
        await assert.rejects(createItem(db, "bob", { title: "bad", serviceName: "has-dash" }), parameter("serviceName"));
      });

      it("names the field of every bad value", async () => {
        const cases: [string, Record<string, unknown>][] = [
          ["title", { title: "" }],
          ["title", { title: 42 }],
          ["tags", { title: "t", tags: "a,b" }],
          ["typeKeywords", { title: "t", typeKeywords: [1] }],
          ["snippet", { title: "t", snippet: "x".repeat(2049) }],
          ["url", { title: "t", url: "has space" }],
          ["access", { title: "t", access: "everyone" }],
          ["properties", { title: "t", properties: [1, 2] }],
          ["folderId", { title: "t", folderId: "f".repeat(32) }],
        ];
        for (const [name, fields] of cases) await assert.rejects(createItem(db, "alice", fields as never), parameter(name), name);
        await assert.rejects(createItem(db, "nobody", { title: "t" }), parameter("owner", NotFoundError));
      });

      it("updates fields, bumps modified and moves between the owner's folders only", async () => {
        const folder = await createFolder(db, "alice", "Outputs");
        const bobsFolder = await createFolder(db, "bob", "Bob's");
        const item = await createItem(db, "alice", { title: "Trend", tags: ["a"], properties: { datasetId: "1" } });
        const moved = await updateItem(db, item.id, {
          title: "Trend 2",
          folderId: folder.id,
          properties: { datasetId: "2" },
          snippet: "short",
        });
        assert.deepEqual(
          [moved.title, moved.folderId, moved.properties, moved.snippet, moved.tags],
          ["Trend 2", folder.id, { datasetId: "2" }, "short", ["a"]],
        );
        assert.ok(moved.modified >= item.modified);
        await assert.rejects(updateItem(db, item.id, { folderId: bobsFolder.id }), parameter("folderId"));
        await assert.rejects(updateItem(db, item.id, { title: "" }), parameter("title"));
        assert.equal((await getItem(db, item.id))!.title, "Trend 2", "a refused update changes nothing");
        await assert.rejects(updateItem(db, "f".repeat(32), { title: "x" }), parameter("itemId", NotFoundError));
        await assert.rejects(createItem(db, "alice", { title: "x", folderId: bobsFolder.id }), parameter("folderId"));
      });

      it("shares and deletes", async () => {
        const item = await createItem(db, "alice", { title: "Shared" });
        assert.equal((await shareItem(db, item.id, "public")).access, "public");
        assert.equal((await shareItem(db, item.id, "ORG" as Access)).access, "org");
        await assert.rejects(shareItem(db, item.id, "world" as Access), parameter("access"));
        await assert.rejects(shareItem(db, "f".repeat(32), "org"), parameter("itemId", NotFoundError));
        await deleteItem(db, item.id);
        assert.equal(await getItem(db, item.id), undefined);
        await assert.rejects(deleteItem(db, item.id), parameter("itemId", NotFoundError));
      });
    });

    describe("listItems", () => {
      let items: Record<Access, Item>;
      let folderId: string;
      let listDb: MetadataDb;

      before(async () => {
        ({ db: listDb } = await tempDb(backend));
        await createUser(listDb, { username: "root", password: PASSWORD, role: "admin" });
        await createUser(listDb, { username: "Alice", password: PASSWORD, role: "publisher" });
        await createUser(listDb, { username: "bob", password: PASSWORD, role: "user" });
        folderId = (await createFolder(listDb, "alice", "Folder")).id;
        items = {
          private: await createItem(listDb, "alice", { title: "private", access: "private" }),
          org: await createItem(listDb, "alice", { title: "org", access: "org", folderId }),
          public: await createItem(listDb, "alice", { title: "public", access: "public" }),
        };
        await createItem(listDb, "bob", { title: "bob's own" });
      });

      const titles = (list: Item[]) => list.map((i) => i.title);

      it("lists only what each viewer may read, oldest first", async () => {
        assert.deepEqual(titles(await listItems(listDb, { owner: "alice", viewer: ALICE })), ["private", "org", "public"]);
        assert.deepEqual(titles(await listItems(listDb, { owner: "alice", viewer: ROOT })), ["private", "org", "public"]);
        assert.deepEqual(titles(await listItems(listDb, { owner: "alice", viewer: BOB })), ["org", "public"]);
        assert.deepEqual(titles(await listItems(listDb, { owner: "alice", viewer: undefined })), ["public"]);
        assert.deepEqual(titles(await listItems(listDb, { viewer: BOB })), ["org", "public", "bob's own"]);
        assert.deepEqual(titles(await listItems(listDb, { viewer: undefined })), ["public"]);
      });

      it("agrees with canRead for every viewer", async () => {
        for (const viewer of [ALICE, ROOT, BOB, undefined]) {
          const listed = new Set((await listItems(listDb, { viewer })).map((i) => i.id));
          for (const item of Object.values(items)) assert.equal(listed.has(item.id), canRead(viewer, item));
        }
      });

      it("narrows to a folder, or to the root folder with null", async () => {
        assert.deepEqual(titles(await listItems(listDb, { owner: "alice", folderId, viewer: ALICE })), ["org"]);
        assert.deepEqual(titles(await listItems(listDb, { owner: "alice", folderId: null, viewer: ALICE })), ["private", "public"]);
        assert.deepEqual(titles(await listItems(listDb, { owner: "alice", folderId: null, viewer: undefined })), ["public"]);
      });
    });
  });
