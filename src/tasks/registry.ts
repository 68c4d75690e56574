/** The GP tasks this server offers, by name, in SPEC §2's order. */
import { anomalyTask } from "./anomaly.js";
import { predictTask } from "./predict.js";
import { subsetTask } from "./subset.js";
import { trendTask } from "./trend.js";
import type { TaskDefinition } from "./types.js";

export const TASKS: ReadonlyMap<string, TaskDefinition> = new Map<string, TaskDefinition>([
  [subsetTask.info.name, subsetTask as TaskDefinition],
  [anomalyTask.info.name, anomalyTask as TaskDefinition],
  [trendTask.info.name, trendTask as TaskDefinition],
  [predictTask.info.name, predictTask as TaskDefinition],
]);

/** What a job stores as options: the task's own options and where outputs go. */
export interface JobOptions {
  readonly dataDir: string;
  readonly task: unknown;
}
