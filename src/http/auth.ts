/**
 * Who is calling: a token from `token=`, `Authorization: Bearer` or
 * `X-Esri-Authorization: Bearer` (SPEC §12), else the services directory's sign-in cookie. A bad token is 498 even where anonymous access
 * would do, so a client learns its token expired instead of silently seeing less.
 */
import type { FastifyRequest } from "fastify";
import { type Viewer, canRunAnalysis } from "../portal/access.js";
import { AuthError } from "../portal/errors.js";
import { resolveToken } from "../portal/tokens.js";
import { sameUsername } from "../portal/users.js";
import type { MetadataDb } from "../store/metadataDb.js";
import { sessionToken } from "./directorySession.js";
import { requestParams } from "./params.js";

export function tokenOf(request: FastifyRequest): string | undefined {
  const fromParam = requestParams(request).token;
  if (fromParam) return fromParam;
  for (const header of ["x-esri-authorization", "authorization"]) {
    const v = request.headers[header];
    const m = typeof v === "string" ? v.match(/^Bearer\s+(\S+)$/i) : undefined;
    if (m) return m[1];
  }
  // A browser signed in to the services directory (directorySession.ts), from its own pages.
  return sessionToken(request);
}

/**
 * The signed-in user, or undefined for an anonymous request (allowed only when the
 * server was started with anonymous access; otherwise 499 Token Required).
 */
export async function viewerOf(db: MetadataDb, request: FastifyRequest, allowAnonymous: boolean): Promise<Viewer> {
  const token = tokenOf(request);
  if (!token) {
    if (allowAnonymous) return undefined;
    throw new AuthError(499);
  }
  const referer = typeof request.headers.referer === "string" ? request.headers.referer : undefined;
  const user = await resolveToken(db, token, { referer, ip: request.ip });
  return { username: user.username, role: user.role };
}

/** A signed-in user is required whatever the server's anonymous setting. */
export async function signedIn(db: MetadataDb, request: FastifyRequest): Promise<NonNullable<Viewer>> {
  const viewer = await viewerOf(db, request, false);
  return viewer!;
}

/**
 * The signed-in caller acting in their own content (the route's `:username`), who must be a
 * publisher or an admin; `what` names the action in the 403's details.
 * @example
 * const viewer = await publisherInOwnContent(ctx.db, request, "adding data");
 */
export async function publisherInOwnContent(db: MetadataDb, request: FastifyRequest, what: string): Promise<NonNullable<Viewer>> {
  const viewer = await signedIn(db, request);
  const { username } = request.params as { username: string };
  if (!sameUsername(viewer.username, username)) throw new AuthError(403, undefined, { details: [`${what} is for your own content only`] });
  if (!canRunAnalysis(viewer)) throw new AuthError(403, undefined, { details: [`${what} needs the publisher or admin role`] });
  return viewer;
}
