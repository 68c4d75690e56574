/**
 * Empty hosted image services, the portal calls the ArcGIS API for Python makes before every
 * raster analysis job (SPEC §12): `portals/self/isServiceNameAvailable` (also
 * `portals/<portal id>/...`) and `content/users/<owner>[/<folderId>]/createService` with
 * `outputType=imageService`. The job then names the service as its output and fills it
 * (services/publish.ts); the item's `update` and `delete` are sharing.ts's.
 */
import type { FastifyInstance } from "fastify";
import { InvalidInputError, NotFoundError } from "../cube/errors.js";
import { checkServiceName } from "../portal/itemFields.js";
import { createEmptyService, readCreateParameters } from "../services/emptyService.js";
import { parseJsonParam } from "../services/spatial.js";
import { publisherInOwnContent, signedIn } from "./auth.js";
import type { AppContext } from "./context.js";
import { requestParams } from "./params.js";
import { resource } from "./route.js";
import { refuseHeldServiceName, serviceNameHolder } from "./serviceNames.js";
import { PORTAL_ID } from "./sharing.js";

/** The one service type Strata hosts, as isServiceNameAvailable's `type` and createService's `outputType` name it. */
const IMAGE_SERVICE = { type: "Image Service", outputType: "imageService" };

export function registerHostedServices(app: FastifyInstance, ctx: AppContext): void {
  resource(app, "/sharing/rest/portals/:portalId/isServiceNameAvailable", async (request) => {
    const { portalId } = request.params as { portalId: string };
    if (portalId !== "self" && portalId !== PORTAL_ID) throw new NotFoundError(`There is no portal ${portalId.slice(0, 80)}.`);
    await signedIn(ctx.db, request);
    const p = requestParams(request);
    const name = (p.name ?? "").trim();
    if (name === "") throw new InvalidInputError("name is required: the service name to check", { parameter: "name" });
    checkServiceName(name, "name");
    const type = (p.type ?? "").trim();
    if (type.replace(/\s+/g, "").toLowerCase() !== IMAGE_SERVICE.outputType.toLowerCase()) {
      const got = type === "" ? "it is missing" : `got ${JSON.stringify(type.slice(0, 80))}`;
      throw new InvalidInputError(`type: Strata hosts image services only; ask for type "${IMAGE_SERVICE.type}" (${got})`, {
        parameter: "type",
      });
    }
    return { body: { available: (await serviceNameHolder(ctx.db, name)) === undefined } };
  });

  for (const prefix of ["/sharing/rest/content/users/:username", "/sharing/rest/content/users/:username/:folderId"]) {
    resource(app, `${prefix}/createService`, async (request) => {
      const viewer = await publisherInOwnContent(ctx.db, request, "creating hosted services");
      const p = requestParams(request);
      const outputType = (p.outputType ?? "").trim();
      if (outputType.toLowerCase() !== IMAGE_SERVICE.outputType.toLowerCase()) {
        const got = outputType === "" ? "it is missing" : `got ${JSON.stringify(outputType.slice(0, 80))}`;
        throw new InvalidInputError(`outputType must be ${IMAGE_SERVICE.outputType}: Strata hosts image services only (${got})`, {
          parameter: "outputType",
        });
      }
      if ((p.isView ?? "").trim().toLowerCase() === "true")
        throw new InvalidInputError("isView: Strata has no view services; send isView=false or leave it out", { parameter: "isView" });
      if ((p.itemIdToCreate ?? "").trim() !== "")
        throw new InvalidInputError("itemIdToCreate is not supported: Strata chooses the new item's id", { parameter: "itemIdToCreate" });
      const service = readCreateParameters(parseJsonParam(p.createParameters ?? "", "createParameters"));
      const { folderId } = request.params as { folderId?: string };
      // Checked and claimed in one transaction, as job submit does.
      const item = await ctx.db.transaction(async (tx) => {
        await refuseHeldServiceName(tx, service.name, "createParameters", "createParameters.name");
        return createEmptyService(tx, ctx.urls, viewer.username, service, {
          folderId: folderId ?? null,
          // Comma-separated; the item's checks trim the tags and drop empty ones.
          tags: (p.tags ?? "").split(","),
          snippet: p.snippet ?? "",
        });
      });
      request.log.info({ itemId: item.id, service: item.serviceName, owner: item.owner }, "empty service created");
      return {
        body: {
          success: true,
          itemId: item.id,
          serviceItemId: item.id,
          name: item.serviceName,
          serviceurl: item.url,
          encodedServiceURL: item.url,
          type: IMAGE_SERVICE.type,
          size: -1,
          isView: false,
        },
      };
    });
  }
}
