/** Item and folder ids: 32 lower-case hex digits, the shape of ArcGIS item ids. */
import { randomBytes } from "node:crypto";

export const PORTAL_ID_PATTERN = /^[0-9a-f]{32}$/;

/**
 * @example
 * newPortalId(); // "3f2a9c0d5e8b4f7a9e1c2b3d4a5f6e7d"
 */
export function newPortalId(): string {
  return randomBytes(16).toString("hex");
}

/**
 * True when `id` has the id shape; checked before it reaches a query or a message.
 * @example
 * isPortalId("../etc"); // false
 */
export function isPortalId(id: unknown): id is string {
  return typeof id === "string" && PORTAL_ID_PATTERN.test(id);
}
