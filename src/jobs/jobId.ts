/**
 * Job ids: "j" and 32 random hex digits, the shape ArcGIS clients are used to. Random, so a
 * user cannot guess another user's job.
 */
import { randomBytes } from "node:crypto";

const JOB_ID = /^j[0-9a-f]{32}$/;

/**
 * @example
 * newJobId(); // "j3f9c0d1e2b4a5968778695a4b3c2d1e0"
 */
export function newJobId(): string {
  return "j" + randomBytes(16).toString("hex");
}

/**
 * Whether `id` has the shape of a job id (check before using one from a URL).
 *
 * @example
 * isJobId("j3f9c0d1e2b4a5968778695a4b3c2d1e0"); // true
 * isJobId("../etc"); // false
 */
export function isJobId(id: string): boolean {
  return JOB_ID.test(id);
}
