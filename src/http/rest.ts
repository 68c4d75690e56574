/** `/rest/info` and the services directory (SPEC §1). */
import type { FastifyInstance } from "fastify";
import { NotFoundError } from "../cube/errors.js";
import { listItems } from "../portal/items.js";
import { HOSTED_FOLDER } from "../services/urls.js";
import { AuthError } from "../portal/errors.js";
import { generateToken } from "../portal/tokens.js";
import { viewerOf } from "./auth.js";
import type { AppContext } from "./context.js";
import { SESSION_COOKIE, fromOwnPages } from "./directorySession.js";
import type { HtmlPage } from "./html.js";
import { requestParams } from "./params.js";
import { resource } from "./route.js";

const VERSION = 11.3;
const FOLDERS = [HOSTED_FOLDER, "System"];
/** How long a browser stays signed in to the services directory. */
const SESSION_MINUTES = 12 * 60;

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
  resource(app, "/rest/services/:folder", async (request) => {
    const { folder } = request.params as { folder: string };
    let services: { name: string; type: string }[];
    if (folder === "System") services = [{ name: "System/RasterAnalysisTools", type: "GPServer" }];
    else if (folder === HOSTED_FOLDER) {
      const viewer = await viewerOf(ctx.db, request, ctx.allowAnonymous);
      services = (await listItems(ctx.db, { viewer }))
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

  registerSignIn(app, ctx);
}

/**
 * The services directory's sign-in (directorySession.ts): `rest/login` shows a form and, given
 * a user's credentials, keeps a token bound to the browser's address in an HttpOnly cookie,
 * then goes back to the page asked for (only a page of this server's /rest/); `rest/logout`
 * forgets it.
 */
function registerSignIn(app: FastifyInstance, ctx: AppContext): void {
  const rest = `${ctx.basePath}/rest/`;
  const cookie = (value: string, maxAge: number) =>
    `${SESSION_COOKIE}=${value}; Path=${rest}; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${ctx.urls.base.startsWith("https:") ? "; Secure" : ""}`;
  const back = (redirect: string | undefined) =>
    redirect && redirect.startsWith(rest) && !/[\\\s]/.test(redirect) ? redirect : `${rest}services`;
  const form = (redirect: string, error?: string): HtmlPage => ({
    title: "Sign in",
    breadcrumbs: [{ text: "Home", href: `${rest}services` }],
    rows: error ? [{ label: "Error", value: error }] : [],
    form: {
      action: `${rest}login`,
      method: "POST",
      submit: "Sign in",
      fields: [
        { name: "username", label: "Username", required: true },
        { name: "password", label: "Password", required: true, password: true },
        { name: "redirect", label: "Then go to", value: redirect },
      ],
    },
  });
  resource(app, "/rest/login", async (request, reply) => {
    const p = requestParams(request);
    const redirect = back(p.redirect);
    if (request.method !== "POST" || !p.username || !p.password) return { body: {}, page: () => form(redirect) };
    if (!fromOwnPages(request)) return { body: {}, page: () => form(redirect, "Sign in from this server's own page.") };
    try {
      const { token } = await generateToken(ctx.db, {
        username: p.username,
        password: p.password,
        client: "requestip",
        ip: request.ip,
        expirationMinutes: SESSION_MINUTES,
      });
      return reply.header("Set-Cookie", cookie(token, SESSION_MINUTES * 60)).redirect(redirect, 303);
    } catch (e) {
      if (!(e instanceof AuthError)) throw e;
      return { body: {}, page: () => form(redirect, "Invalid username or password.") };
    }
  });
  resource(app, "/rest/logout", (_request, reply) => reply.header("Set-Cookie", cookie("", 0)).redirect(`${rest}services`, 303));
}
