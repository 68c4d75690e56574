/**
 * The words the job service itself says to users, in one place. Messages say what happened
 * and what to do; stack traces go to the server log, never here.
 */
import type { JobMessage } from "./types.js";

/**
 * @example
 * appendMessage(db, id, informative("Reading 1461 time slices."));
 */
export function informative(description: string): JobMessage {
  return { type: "esriJobMessageTypeInformative", description };
}

/**
 * @example
 * appendMessage(db, id, warning("3 time slices hold no data."));
 */
export function warning(description: string): JobMessage {
  return { type: "esriJobMessageTypeWarning", description };
}

/**
 * @example
 * updateStatus(db, id, "esriJobFailed", { message: errorMessage("The input has no time dimension.") });
 */
export function errorMessage(description: string): JobMessage {
  return { type: "esriJobMessageTypeError", description };
}

/**
 * The user-readable text of something thrown: its message, never its stack.
 *
 * @example
 * describeError(new Error("No variable t2m.")); // "No variable t2m."
 */
export function describeError(err: unknown): string {
  const text = err instanceof Error ? err.message : typeof err === "string" ? err : "";
  return text.trim() === "" ? "The task failed without saying why." : text;
}

/**
 * A duration in the unit a person would use.
 *
 * @example
 * formatDuration(250); // "250 ms"
 * formatDuration(90_000); // "90 s"
 * formatDuration(6 * 3600_000); // "6 h"
 */
export function formatDuration(ms: number): string {
  const round = (x: number): string => String(Math.round(x * 10) / 10);
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${round(ms / 1000)} s`;
  if (ms < 2 * 3600_000) return `${round(ms / 60_000)} min`;
  return `${round(ms / 3600_000)} h`;
}

/** The Error message of a job stopped at its time limit. */
export function timeLimitMessage(limitMs: number): JobMessage {
  return errorMessage(
    `The job ran longer than the time limit of ${formatDuration(limitMs)} and was stopped. ` +
      "Try a smaller extent or time range, or ask the administrator to raise the limit.",
  );
}

/** The Error message of a job whose worker thread died under it. */
export function workerStoppedMessage(exitCode: number): JobMessage {
  return errorMessage(
    `The worker running the job stopped unexpectedly (exit code ${exitCode}), so the job did not finish. ` +
      "Submit it again; if it stops again, tell the administrator.",
  );
}

/** The Error message of a job for which no worker could be started. */
export function workerStartMessage(): JobMessage {
  return errorMessage("The server could not start a worker for the job. Tell the administrator.");
}

/** The Informative message of a job queued again after a server restart interrupted it. */
export function restartedMessage(): JobMessage {
  return informative("The job was restarted after a server restart; it runs again from the start.");
}

/** The Error message of a job interrupted by server restarts too often to try again. */
export function interruptedTooOftenMessage(attempts: number): JobMessage {
  return errorMessage(
    `The job was interrupted by a server restart ${attempts === 1 ? "once" : `${attempts} times`} and was not started again. ` +
      "Submit it again; if it is interrupted again, it may need more memory than the server has.",
  );
}

/** The Informative message of a running job handed back to the queue by a shutdown. */
export function shutdownMessage(): JobMessage {
  return informative("The server was shut down while the job was running; it runs again from the start when the server is back.");
}

/** The Warning shown once when a task sends more messages than a job keeps. */
export function messagesOmittedMessage(kept: number): JobMessage {
  return warning(`The task sent more than ${kept} messages; the rest were not kept.`);
}
