/**
 * A signed-in browser in the services directory (issue 15): ArcGIS Server's directory signs
 * in at <base>/rest/login and keeps the token in a cookie; so does Strata's. The cookie is
 * HttpOnly and SameSite=Strict, sent only under <base>/rest/, and a request may use it only
 * when it comes from the server's own pages (no other origin's script or form can spend it,
 * whatever CORS allows for tokens sent explicitly). An explicit token always wins.
 */
import type { FastifyRequest } from "fastify";

export const SESSION_COOKIE = "strata_directory_token";

/** The cookie's value, if the request carries it. */
export function sessionCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (typeof header !== "string") return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/**
 * Whether the request comes from this server's own pages: a browser says so (Sec-Fetch-Site
 * same-origin, or none for what the user typed), and an Origin, when sent, names this host.
 */
export function fromOwnPages(request: FastifyRequest): boolean {
  const site = request.headers["sec-fetch-site"];
  if (typeof site === "string" && site !== "same-origin" && site !== "none") return false;
  const origin = request.headers.origin;
  if (typeof origin === "string") {
    try {
      if (new URL(origin).host !== request.host) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** The directory session's token, when the request may use it. */
export function sessionToken(request: FastifyRequest): string | undefined {
  const token = sessionCookie(request);
  return token && fromOwnPages(request) ? token : undefined;
}

/** The base path of a request's URL: what comes before /rest/ or /sharing/. */
export function basePathOf(url: string): string {
  const path = url.split("?")[0];
  const at = path.search(/\/(rest|sharing)(\/|$)/);
  return at < 0 ? "" : path.slice(0, at);
}
