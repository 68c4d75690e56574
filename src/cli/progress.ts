/**
 * A run's progress for a person: a bar redrawn in place on a terminal, or a plain line at
 * every tenth otherwise (logs, pipes), with messages on lines of their own.
 */
import type { Output } from "./command.js";

export interface ProgressReporter {
  update(percentage: number): void;
  message(text: string): void;
  /** End the bar's line. */
  done(): void;
}

const WIDTH = 30;

/**
 * @example
 * const p = progressReporter(out, "GenerateTrendRaster"); p.update(40); p.done();
 */
export function progressReporter(out: Output, what: string): ProgressReporter {
  let shown = -1;
  let barOpen = false;
  const started = Date.now();
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  const endBar = () => {
    if (barOpen) out.stderr("\n");
    barOpen = false;
  };
  return {
    update(percentage) {
      const p = Math.max(0, Math.min(100, Math.floor(percentage)));
      if (out.terminal) {
        if (p === shown) return;
        const filled = Math.round((p / 100) * WIDTH);
        out.stderr(`\r${what} [${"#".repeat(filled)}${".".repeat(WIDTH - filled)}] ${String(p).padStart(3)}%  ${elapsed()}`);
        barOpen = true;
      } else {
        if (Math.floor(p / 10) === Math.floor(shown / 10)) return;
        out.stderr(`${what}: ${p}% after ${elapsed()}\n`);
      }
      shown = p;
    },
    message(text) {
      endBar();
      out.stderr(`${text}\n`);
      shown = -1;
    },
    done: endBar,
  };
}
