/**
 * The portal half of the API (`/sharing/rest/...`, SPEC §1 and §12): tokens, discovery,
 * the signed-in user, items (update, share, move, delete) and folders. Creating empty hosted
 * services (createService, isServiceNameAvailable) is hostedServices.ts.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { InvalidInputError, NotFoundError } from "../cube/errors.js";
import { type Viewer, canRead, canWrite, isAdmin } from "../portal/access.js";
import { AuthError } from "../portal/errors.js";
import { createFolder, deleteFolder, getFolder, listFolders } from "../portal/folders.js";
import { type Item, deleteItem, getItem, listItems, shareItem, updateItem } from "../portal/items.js";
import { applyItemUpdate, clientProperties, readItemUpdate } from "../portal/itemUpdate.js";
import { exchangeToken, generateToken } from "../portal/tokens.js";
import { getUser, sameUsername } from "../portal/users.js";
import { datasetIdOf } from "../services/publish.js";
import { toolsUrl } from "../services/urls.js";
import { signedIn, viewerOf } from "./auth.js";
import type { AppContext } from "./context.js";
import { requestParams } from "./params.js";
import { resource } from "./route.js";

const VERSION = "11.3";
/** This portal's id (portals/self answers it; clients also ask portals/<id>/...). */
export const PORTAL_ID = "strata";

export function registerSharing(app: FastifyInstance, ctx: AppContext): void {
  const sharing = ["/sharing/rest", "/sharing"];
  for (const base of sharing) {
    resource(app, `${base}/generateToken`, async (request) => {
      const p = requestParams(request);
      if (p.token && p.serverUrl && !p.username) {
        const referer = p.referer ?? (typeof request.headers.referer === "string" ? request.headers.referer : undefined);
        return { body: await exchangeToken(ctx.db, p.token, { referer, ip: request.ip }) };
      }
      if (!p.username || !p.password) {
        throw new AuthError(400, undefined, { details: ["username and password are required."] });
      }
      const minutes = p.expiration ? Number(p.expiration) : undefined;
      if (minutes !== undefined && !(minutes > 0))
        throw new InvalidInputError("expiration must be a positive number of minutes", { parameter: "expiration" });
      const client = (p.client || (p.referer ? "referer" : p.ip ? "requestip" : "anonymous")).toLowerCase();
      if (!["referer", "requestip", "anonymous"].includes(client)) {
        throw new InvalidInputError("client must be referer, requestip or anonymous", { parameter: "client" });
      }
      const token = await generateToken(ctx.db, {
        username: p.username,
        password: p.password,
        expirationMinutes: minutes,
        client: client as "referer" | "requestip" | "anonymous",
        referer: p.referer,
        ip: client === "requestip" ? (p.ip ?? request.ip) : undefined,
      });
      return {
        body: token,
        page: () => ({
          title: "Token",
          rows: [
            { label: "Token", value: token.token },
            { label: "Expires", value: new Date(token.expires).toISOString() },
          ],
        }),
      };
    });
  }
  resource(app, "/sharing/rest/generateToken/form", () => ({
    body: {},
    page: () => ({
      title: "Generate Token",
      form: {
        action: "../generateToken",
        method: "POST",
        submit: "Generate Token",
        fields: [
          { name: "username", label: "Username", required: true },
          { name: "password", label: "Password", required: true, password: true },
          { name: "client", label: "Client", choices: ["referer", "requestip", "anonymous"] },
          { name: "referer", label: "Referer" },
          { name: "expiration", label: "Expiration (minutes)", value: "60" },
        ],
      },
    }),
  }));

  resource(app, "/sharing/rest", () => ({ body: { currentVersion: VERSION } }));
  resource(app, "/sharing/rest/info", () => ({
    body: {
      owningSystemUrl: ctx.urls.base,
      authInfo: { tokenServicesUrl: `${ctx.urls.base}/sharing/rest/generateToken`, isTokenBasedSecurity: true },
    },
  }));

  resource(app, "/sharing/rest/portals/self", async (request) => {
    const viewer = await optionalViewer(ctx, request);
    const tools = toolsUrl(ctx.urls);
    return {
      body: {
        id: PORTAL_ID,
        name: "Strata",
        isPortal: true,
        portalMode: "singletenant",
        currentVersion: VERSION,
        portalHostname: new URL(ctx.urls.base).host,
        allowedRedirectUris: [],
        access: ctx.allowAnonymous ? "public" : "private",
        helperServices: { rasterAnalytics: { url: tools }, geoprocessing: { url: tools } },
        ...(viewer ? { user: await userJson(ctx, viewer) } : {}),
      },
    };
  });

  resource(app, "/sharing/rest/community/self", async (request) => ({ body: await userJson(ctx, await signedIn(ctx.db, request)) }));
  resource(app, "/sharing/rest/community/users/:username", async (request) => {
    const viewer = await viewerOf(ctx.db, request, ctx.allowAnonymous);
    const { username } = request.params as { username: string };
    if (!viewer || (!sameUsername(viewer.username, username) && !isAdmin(viewer))) throw new AuthError(403);
    return { body: await userJson(ctx, { username, role: (await getUserOrThrow(ctx, username)).role }) };
  });

  // Items the caller may read: `q` matches title, tags, type, owner, snippet or service name (words, any
  // case); `num` (default 10, at most 100) and `start` (1-based) page; newest first.
  resource(app, "/sharing/rest/search", async (request) => {
    // Public items are listed without a token only when the server allows anonymous access;
    // a bad token is refused, not read as anonymous.
    const viewer = await viewerOf(ctx.db, request, ctx.allowAnonymous);
    const p = requestParams(request);
    const num = p.num?.trim() ? Number(p.num) : 10;
    const start = p.start?.trim() ? Number(p.start) : 1;
    if (!Number.isInteger(num) || num < 0 || num > 100)
      throw new InvalidInputError(`num must be 0 to 100; got "${p.num}"`, { parameter: "num" });
    if (!Number.isInteger(start) || start < 1)
      throw new InvalidInputError(`start must be 1 or more; got "${p.start}"`, { parameter: "start" });
    const words = (p.q ?? "")
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w !== "" && w !== "*");
    const matches = (await listItems(ctx.db, { viewer }))
      .filter((item) => {
        const text = [item.title, item.type, item.owner, item.snippet, item.serviceName ?? "", ...item.tags].join(" ").toLowerCase();
        return words.every((w) => text.includes(w));
      })
      .reverse();
    const page = matches.slice(start - 1, start - 1 + num);
    const next = start - 1 + num < matches.length ? start + num : -1;
    return { body: { query: p.q ?? "", total: matches.length, start, num, nextStart: next, results: page.map(itemJson) } };
  });

  resource(app, "/sharing/rest/content/items/:id", async (request) => {
    const viewer = await viewerOf(ctx.db, request, ctx.allowAnonymous);
    return { body: itemJson(await readableItem(ctx, viewer, (request.params as { id: string }).id)) };
  });

  resource(app, "/sharing/rest/content/users/:username", (request) => userContent(ctx, request, null));
  resource(app, "/sharing/rest/content/users/:username/:folderId", (request) =>
    userContent(ctx, request, (request.params as { folderId: string }).folderId),
  );

  resource(app, "/sharing/rest/content/users/:username/createFolder", async (request) => {
    const viewer = await ownerOf(ctx, request);
    const title = requestParams(request).title;
    if (!title) throw new InvalidInputError("title is required", { parameter: "title" });
    const folder = await createFolder(ctx.db, viewer, title);
    return { body: { success: true, folder: { id: folder.id, title: folder.title, username: viewer } } };
  });
  resource(app, "/sharing/rest/content/users/:username/folders/:folderId/delete", async (request) => {
    const owner = await ownerOf(ctx, request);
    const { folderId } = request.params as { folderId: string };
    const folder = await getFolder(ctx.db, folderId);
    if (!folder || !sameUsername(folder.owner, owner)) throw new NotFoundError("Folder does not exist.");
    await deleteFolder(ctx.db, folderId);
    return { body: { success: true, folder: { id: folderId } } };
  });

  for (const prefix of ["/sharing/rest/content/users/:username/items/:id", "/sharing/rest/content/users/:username/:folderId/items/:id"]) {
    resource(app, `${prefix}/delete`, async (request) => {
      const viewer = await signedIn(ctx.db, request);
      const item = await writableItem(ctx, viewer, (request.params as { id: string }).id);
      await deleteItemAndData(ctx, item);
      return { body: { success: true, itemId: item.id } };
    });
    // What the ArcGIS API for Python sends around a job: description, tags and snippet of the
    // empty service it created, then the job's URL and id in `properties`.
    resource(app, `${prefix}/update`, async (request) => {
      const viewer = await signedIn(ctx.db, request);
      const item = await writableItem(ctx, viewer, (request.params as { id: string }).id);
      const updated = await applyItemUpdate(ctx.db, item.id, readItemUpdate(requestParams(request), item));
      return { body: { success: true, id: updated.id } };
    });
    // ArcGIS's move: `folder` is the destination folder's id, "/" (or empty) the owner's root.
    resource(app, `${prefix}/move`, async (request) => {
      const viewer = await signedIn(ctx.db, request);
      const item = await writableItem(ctx, viewer, (request.params as { id: string }).id);
      const folder = requestParams(request).folder;
      if (folder === undefined)
        throw new InvalidInputError('folder is required: a folder id, or "/" for the root', { parameter: "folder" });
      const target = folder.trim() === "" || folder.trim() === "/" ? null : folder.trim();
      const moved = await updateItem(ctx.db, item.id, { folderId: target });
      return { body: { success: true, itemId: moved.id, owner: moved.owner, folder: moved.folderId ?? "" } };
    });
    resource(app, `${prefix}/share`, async (request) => {
      const viewer = await signedIn(ctx.db, request);
      const item = await writableItem(ctx, viewer, (request.params as { id: string }).id);
      const p = requestParams(request);
      const access = p.everyone === "true" ? "public" : p.org === "true" ? "org" : "private";
      await shareItem(ctx.db, item.id, access);
      return { body: { notSharedWith: [], itemId: item.id } };
    });
  }
}

/** Deleting an item removes its service and its dataset (SPEC / issue: no orphans). */
export async function deleteItemAndData(ctx: AppContext, item: Item): Promise<void> {
  await deleteItem(ctx.db, item.id);
  const datasetId = datasetIdOf(item);
  if (datasetId) await ctx.store.remove(datasetId).catch((e: unknown) => (e instanceof NotFoundError ? undefined : Promise.reject(e)));
}

async function optionalViewer(ctx: AppContext, request: FastifyRequest): Promise<Viewer> {
  try {
    return await viewerOf(ctx.db, request, true);
  } catch {
    return undefined;
  }
}

async function getUserOrThrow(ctx: AppContext, username: string) {
  const user = await getUser(ctx.db, username);
  if (!user) throw new NotFoundError(`no user named ${username}`);
  return user;
}

async function userJson(ctx: AppContext, viewer: NonNullable<Viewer>): Promise<Record<string, unknown>> {
  const user = await getUserOrThrow(ctx, viewer.username);
  const role = user.role === "admin" ? "org_admin" : user.role === "publisher" ? "org_publisher" : "org_user";
  const privileges =
    user.role === "user"
      ? ["portal:user:createItem"]
      : ["portal:user:createItem", "portal:publisher:publishDynamicImagery", "premium:publisher:rasteranalysis"];
  return {
    username: user.username,
    fullName: user.fullName ?? user.username,
    email: user.email ?? "",
    role,
    userType: "arcgisonly",
    privileges,
  };
}

async function readableItem(ctx: AppContext, viewer: Viewer, id: string): Promise<Item> {
  const item = await getItem(ctx.db, id);
  if (!item) throw new NotFoundError("Item does not exist or is inaccessible.");
  if (!canRead(viewer, item)) throw viewer ? new AuthError(403) : new AuthError(499);
  return item;
}

async function writableItem(ctx: AppContext, viewer: NonNullable<Viewer>, id: string): Promise<Item> {
  const item = await readableItem(ctx, viewer, id);
  if (!canWrite(viewer, item)) throw new AuthError(403);
  return item;
}

/** The username in the path, which must be the caller (or the caller an admin). */
async function ownerOf(ctx: AppContext, request: FastifyRequest): Promise<string> {
  const viewer = await signedIn(ctx.db, request);
  const { username } = request.params as { username: string };
  if (!sameUsername(viewer.username, username) && !isAdmin(viewer)) throw new AuthError(403);
  return (await getUserOrThrow(ctx, username)).username;
}

async function userContent(ctx: AppContext, request: FastifyRequest, folderId: string | null) {
  const username = await ownerOf(ctx, request);
  const viewer = await signedIn(ctx.db, request);
  // Folders are their owner's (and the admin's) to browse: to anyone else another user's
  // folder does not exist, and their folder titles are not listed.
  const theirs = sameUsername(viewer.username, username) || isAdmin(viewer);
  const folder = folderId ? await getFolder(ctx.db, folderId) : undefined;
  if (folderId && (!folder || !theirs || !sameUsername(folder.owner, username))) throw new NotFoundError("Folder does not exist.");
  const items = await listItems(ctx.db, { owner: username, folderId, viewer });
  const folders = theirs
    ? (await listFolders(ctx.db, username)).map((f) => ({ id: f.id, title: f.title, username, created: f.created }))
    : [];
  return {
    body: {
      username,
      total: items.length,
      start: 1,
      num: items.length,
      nextStart: -1,
      currentFolder: folder ? { id: folder.id, title: folder.title } : null,
      items: items.map(itemJson),
      folders,
    },
  };
}

export function itemJson(item: Item): Record<string, unknown> {
  return {
    id: item.id,
    owner: item.owner,
    ownerFolder: item.folderId,
    title: item.title,
    type: item.type,
    typeKeywords: item.typeKeywords,
    description: item.description,
    snippet: item.snippet,
    tags: item.tags,
    url: item.url,
    name: item.serviceName,
    access: item.access === "public" ? "public" : item.access === "org" ? "org" : "private",
    created: item.created,
    modified: item.modified,
    // The client's own (item update); what Strata keeps about the data is not shown.
    properties: clientProperties(item),
  };
}
