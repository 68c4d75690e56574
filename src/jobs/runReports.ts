/**
 * What a run's thread reports while it runs (progress, messages for the user, reports such as
 * its pending dataset), written to the job's record in the order it came, by whichever
 * process owns the thread (the embedded executor, a queue worker's parent runner).
 */
import type { MetadataDb } from "../store/metadataDb.js";
import { messagesOmittedMessage } from "./jobMessages.js";
import { appendMessage, setProgress, setReport } from "./jobStore.js";
import type { FromWorker } from "./protocol.js";

/** Messages a task may add to one run; more would only bloat the record. */
export const MAX_TASK_MESSAGES = 1000;

export interface RunReports {
  /** Record `message` if it is a progress, message or report (true), else leave it (false). */
  record(message: FromWorker): boolean;
  /** Resolves once everything recorded so far is written (a failed write is logged, not fatal). */
  settled(): Promise<void>;
}

/**
 * @example
 * const reports = runReports(db, job.id, log);
 * worker.on("message", (m) => reports.record(m) || handleOther(m));
 * await reports.settled(); // before reading the record (its pending dataset above all)
 */
export function runReports(db: MetadataDb, jobId: string, log: (message: string, error?: unknown) => void): RunReports {
  let writes = Promise.resolve();
  let messages = 0;
  const persist = (write: () => Promise<unknown>): void => {
    writes = writes.then(write).then(
      () => undefined,
      (err: unknown) => log(`Recording what job ${jobId} reported failed.`, err),
    );
  };
  return {
    record(message) {
      switch (message.type) {
        case "progress": {
          const progress =
            message.message === undefined
              ? { percentage: message.percentage }
              : { percentage: message.percentage, message: message.message };
          persist(() => setProgress(db, jobId, progress));
          return true;
        }
        case "message": {
          messages += 1;
          const said = { type: message.messageType, description: message.description };
          if (messages <= MAX_TASK_MESSAGES) persist(() => appendMessage(db, jobId, said));
          else if (messages === MAX_TASK_MESSAGES + 1) persist(() => appendMessage(db, jobId, messagesOmittedMessage(MAX_TASK_MESSAGES)));
          return true;
        }
        case "report": {
          const { key, value } = message;
          persist(() => setReport(db, jobId, key, value));
          return true;
        }
        default:
          return false;
      }
    },
    settled: () => writes,
  };
}
