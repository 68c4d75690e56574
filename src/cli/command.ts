/** What a CLI command is, apart from the dispatcher so commands never import it (no cycle). */
import { parseArgs } from "node:util";

/** Where a command writes; tests pass their own to run commands in-process. */
export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether stdout is a terminal (a person reading), not a pipe or a log file. */
  readonly terminal?: boolean;
}

export const PROCESS_OUTPUT: Output = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  terminal: process.stdout.isTTY === true,
};

export interface Command {
  readonly usage: string;
  run(args: string[], out: Output): Promise<number>;
}

/** Parse flags strictly so typos are errors, not silently ignored. */
export function parseCommandArgs<T extends Record<string, { type: "string" | "boolean"; multiple?: boolean }>>(args: string[], options: T) {
  return parseArgs({ args, options, allowPositionals: true, strict: true });
}
