/**
 * What an upload or a publish is doing once its bytes have arrived (checking the file,
 * converting it and computing statistics, publishing), so a client can say so while the one
 * request runs: the client names its request with `uploadId` (its own random id) and asks
 * `content/users/<u>/uploads/<uploadId>/status` meanwhile. ArcGIS has no such call for a
 * synchronous addItem; the answer is shaped like its item status (`status`, `statusMessage`).
 * Kept in memory for a few minutes: it is about requests in flight, not a record.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { InvalidInputError, NotFoundError, StrataError } from "../cube/errors.js";
import { AuthError } from "../portal/errors.js";
import { canonicalUsername, sameUsername } from "../portal/users.js";
import { signedIn } from "./auth.js";
import type { AppContext } from "./context.js";
import { requestParams } from "./params.js";
import { resource } from "./route.js";

type UploadState = "processing" | "completed" | "failed";

interface Entry {
  status: UploadState;
  statusMessage: string;
  updated: number;
}

/** How long a status is kept after its last change. */
const KEEP_MS = 10 * 60_000;
const UPLOAD_ID = /^[A-Za-z0-9_-]{8,64}$/;

/** The client's id for its request, refused naming uploadId unless it is a plain token. */
function checkUploadId(id: string): string {
  if (!UPLOAD_ID.test(id)) throw new InvalidInputError("uploadId must be 8 to 64 letters, digits, '-' or '_'", { parameter: "uploadId" });
  return id;
}

const boards = new WeakMap<AppContext, Map<string, Entry>>();

function boardOf(ctx: AppContext): Map<string, Entry> {
  let board = boards.get(ctx);
  if (!board) boards.set(ctx, (board = new Map()));
  return board;
}

/** Phases of one request: `say` what it does now; `during` ends it as the work ends. Does nothing without an uploadId. */
export interface UploadPhases {
  say(statusMessage: string): void;
  /** Run the request's work, then mark it completed (saying `done`) or failed (saying why, when the why is the user's). */
  during<T>(work: () => Promise<T>, done: string): Promise<T>;
}

/**
 * The phases of the request's `uploadId` (a bad one is a 400 before anything is done).
 * @example
 * const phases = uploadPhases(ctx, request, viewer.username);
 * phases.say("Checking sst.nc");
 */
export function uploadPhases(ctx: AppContext, request: FastifyRequest, username: string): UploadPhases {
  const id = requestParams(request).uploadId;
  if (id === undefined || id === "") return { say: () => undefined, during: (work) => work() };
  const board = boardOf(ctx);
  const key = `${canonicalUsername(username)}/${checkUploadId(id)}`;
  const set = (status: UploadState, statusMessage: string) => {
    const now = Date.now();
    for (const [k, e] of board) if (now - e.updated > KEEP_MS) board.delete(k);
    board.set(key, { status, statusMessage, updated: now });
  };
  return {
    say: (message) => set("processing", message),
    async during(work, done) {
      try {
        const result = await work();
        set("completed", done);
        return result;
      } catch (e) {
        set("failed", e instanceof StrataError ? e.message : "The request failed.");
        throw e;
      }
    },
  };
}

export function registerUploadStatus(app: FastifyInstance, ctx: AppContext): void {
  resource(app, "/sharing/rest/content/users/:username/uploads/:uploadId/status", async (request) => {
    const viewer = await signedIn(ctx.db, request);
    const { username, uploadId } = request.params as { username: string; uploadId: string };
    if (!sameUsername(viewer.username, username)) throw new AuthError(403, undefined, { details: ["an upload's status is its owner's"] });
    const entry = boardOf(ctx).get(`${canonicalUsername(username)}/${checkUploadId(uploadId)}`);
    if (!entry) throw new NotFoundError(`no upload ${uploadId} is being processed (or it ended over ${KEEP_MS / 60_000} minutes ago)`);
    return { body: { uploadId, status: entry.status, statusMessage: entry.statusMessage } };
  });
}
