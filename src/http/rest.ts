/** `/rest/info` and the services directory (SPEC §1). */
import type { FastifyInstance } from "fastify";
import { NotFoundError } from "../cube/errors.js";
import { listItems } from "../portal/items.js";
import { HOSTED_FOLDER } from "../services/urls.js";
import { viewerOf } from "./auth.js";
import type { AppContext } from "./context.js";
import { resource } from "./route.js";

const VERSION = 11.3;
const FOLDERS = [HOSTED_FOLDER, "System"];

export function registerRest(app: FastifyInstance, ctx: AppContext): void {
  const root = `${ctx.basePath}/rest/services`;
  resource(app, "/rest/info", () => ({
    body: {
      currentVersion: VERSION,
      fullVersion: "11.3.0",
      owningSystemUrl: ctx.urls.base,
      authInfo: { isTokenBasedSecurity: true, tokenServicesUrl: `${ctx.urls.base}/sharing/rest/generateToken` },
    },
  }));
  resource(app, "/rest/services", () => ({
    body: { currentVersion: VERSION, folders: FOLDERS, services: [] },
    page: () => ({ title: "Folder: /", rows: [{ label: "Folders", links: FOLDERS.map((f) => ({ text: f, href: `${root}/${f}` })) }] }),
  }));
  resource(app, "/rest/services/:folder", (request) => {
    const { folder } = request.params as { folder: string };
    let services: { name: string; type: string }[];
    if (folder === "System") services = [{ name: "System/RasterAnalysisTools", type: "GPServer" }];
    else if (folder === HOSTED_FOLDER) {
      const viewer = viewerOf(ctx.db, request, ctx.allowAnonymous);
      services = listItems(ctx.db, { viewer })
        .filter((i) => i.serviceName)
        .map((i) => ({ name: `${HOSTED_FOLDER}/${i.serviceName}`, type: "ImageServer" }));
    } else throw new NotFoundError(`Folder ${folder} does not exist.`);
    return {
      body: { currentVersion: VERSION, folders: [], services },
      page: () => ({
        title: `Folder: ${folder}`,
        breadcrumbs: [{ text: "Home", href: root }],
        rows: [{ label: "Services", links: services.map((s) => ({ text: `${s.name} (${s.type})`, href: `${root}/${s.name}/${s.type}` })) }],
      }),
    };
  });
}
