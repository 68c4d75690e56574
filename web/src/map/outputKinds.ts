/**
 * Which task made an output service, remembered in this browser. Strata's service JSON does
 * not say whether a variable is an anomaly (the server keeps that as the internal attribute
 * `strata:anomaly`), yet the legend must know to draw a diverging ramp; so the app notes the
 * task of every output it submits or opens from the jobs list.
 */
const KEY = "strata.outputTasks";

function read(): Record<string, string> {
  try {
    return JSON.parse(localStorage.getItem(KEY) ?? "{}") as Record<string, string>;
  } catch {
    return {};
  }
}

/** Note that service `name` is (or will be) the output of `task`. */
export function rememberOutput(name: string, task: string): void {
  if (!name) return;
  try {
    localStorage.setItem(KEY, JSON.stringify({ ...read(), [name.toLowerCase()]: task }));
  } catch {
    // Storage full or disabled: the legend falls back to the service's name.
  }
}

export const outputTask = (name: string): string | undefined => read()[name.toLowerCase()];
