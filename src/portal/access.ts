/**
 * Who may do what, in one place. A viewer is the signed-in user a request acts for, or
 * undefined when it is anonymous. Every rule here is a pure function: the HTTP layer, the
 * job store and listItems all ask these, never the database.
 */
import { AuthError } from "./errors.js";
import type { Role } from "./users.js";

export type Viewer = { readonly username: string; readonly role: Role } | undefined;

/** private: owner and admins; org: any signed-in user; public: everyone, anonymous included. */
export type Access = "private" | "org" | "public";
export const ACCESS_LEVELS: readonly Access[] = ["private", "org", "public"];

/**
 * @example
 * isAdmin({ username: "root", role: "admin" }); // true
 */
export function isAdmin(viewer: Viewer): boolean {
  return viewer?.role === "admin";
}

/**
 * The owner or an admin: who may change or delete a thing, or see a private one (items,
 * folders, and jobs, which belong to the user who submitted them).
 * @example
 * if (!canManage(viewer, job.owner)) throw accessDenied(viewer);
 */
export function canManage(viewer: Viewer, owner: string): boolean {
  return viewer !== undefined && (viewer.role === "admin" || viewer.username.toLowerCase() === owner.toLowerCase());
}

/**
 * @example
 * listed.filter((item) => canRead(viewer, item));
 */
export function canRead(viewer: Viewer, item: { readonly owner: string; readonly access: Access }): boolean {
  if (item.access === "public") return true;
  if (item.access === "org" && viewer !== undefined) return true;
  return canManage(viewer, item.owner);
}

/**
 * @example
 * if (!canWrite(viewer, item)) throw accessDenied(viewer);
 */
export function canWrite(viewer: Viewer, item: { readonly owner: string }): boolean {
  return canManage(viewer, item.owner);
}

/**
 * Submitting analysis jobs (and so creating hosted services) needs publisher or admin.
 * @example
 * if (!canRunAnalysis(viewer)) throw accessDenied(viewer);
 */
export function canRunAnalysis(viewer: Viewer): boolean {
  return viewer?.role === "admin" || viewer?.role === "publisher";
}

/**
 * The error for a refused request: 499 "Token Required" when anonymous (so clients prompt
 * for sign-in), 403 when signed in.
 * @example
 * if (!canRead(viewer, item)) throw accessDenied(viewer);
 */
export function accessDenied(viewer: Viewer): AuthError {
  return viewer === undefined ? new AuthError(499) : new AuthError(403);
}
