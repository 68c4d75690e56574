/** The GP tasks this server offers, by name (SPEC §2 lists four; more arrive with their issues). */
import { subsetTask } from "./subset.js";
import type { TaskDefinition } from "./types.js";

export const TASKS: ReadonlyMap<string, TaskDefinition> = new Map<string, TaskDefinition>([
  [subsetTask.info.name, subsetTask as TaskDefinition],
]);

/** What a job stores as options: the task's own options and where outputs go. */
export interface JobOptions {
  readonly dataDir: string;
  readonly task: unknown;
}
