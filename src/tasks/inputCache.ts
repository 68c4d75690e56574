/**
 * The opened input a thread keeps between the shards it runs (datasetRunners' runShard in
 * common.ts), so the passes of a job open their input once per thread, not once per pass:
 * opening costs a module's and a file's set-up (HDF5 metadata, the chunk index). A thread
 * keeps the input of its last shard; a shard of another job closes it first, and so does the
 * thread's release (closeKeptInput). On the job's own thread the run lends the input it
 * already has open (lendInput) to the shard that runs there. An input serves one shard at a
 * time: a shard that finds it busy opens one of its own, closed when it ends.
 */
import type { OpenedInput } from "./common.js";

interface Entry {
  /** Whose input: the task (its DatasetTask) and the job's options and output, as JSON. */
  readonly owner: object;
  readonly key: string;
  readonly input: OpenedInput;
  busy: boolean;
}

/** What borrowInput hands a shard; `release(reusable)` when the shard ends (false after a failure: the input is closed). */
export interface InputLease {
  readonly input: OpenedInput;
  release(reusable: boolean): Promise<void>;
}

const lent = new Set<Entry>();
let kept: Entry | undefined;

/**
 * Lend `input` (open on this thread for the whole run) to the shards of the run that come
 * here; returns the function that takes it back, called before the run closes it.
 * @example
 * const takeBack = lendInput(task, inputKey(options, path), input);
 * try { await ctx.fanOut(...) } finally { takeBack(); }
 */
export function lendInput(owner: object, key: string, input: OpenedInput): () => void {
  const entry: Entry = { owner, key, input, busy: false };
  lent.add(entry);
  return () => void lent.delete(entry);
}

/**
 * The input for a shard of `owner`'s job `key`: the one lent or kept here when free, else
 * one opened with `open` (kept for the next shard when nothing else is).
 * @example
 * const lease = await borrowInput(task, inputKey(options, path), () => task.open(options));
 * try { ... lease.input.compute(...) ... } finally { await lease.release(ok); }
 */
export async function borrowInput(owner: object, key: string, open: () => Promise<OpenedInput>): Promise<InputLease> {
  const free = (e: Entry | undefined): e is Entry => e !== undefined && e.owner === owner && e.key === key && !e.busy;
  const own = [...lent].find(free);
  if (own) {
    own.busy = true;
    return { input: own.input, release: async () => void (own.busy = false) };
  }
  // Another job's input goes before this one opens: a thread holds one job's input at a time.
  if (kept && !kept.busy && !(kept.owner === owner && kept.key === key)) await drop(kept);
  if (free(kept)) return lease(kept);
  const entry: Entry = { owner, key, input: await open(), busy: true };
  if (kept === undefined) kept = entry;
  return lease(entry);
}

/**
 * Close the input this thread keeps, unless a shard is using it (a shard thread's release).
 * @example
 * await closeKeptInput();
 */
export async function closeKeptInput(): Promise<void> {
  if (kept && !kept.busy) await drop(kept);
}

function lease(entry: Entry): InputLease {
  entry.busy = true;
  return {
    input: entry.input,
    async release(reusable) {
      entry.busy = false;
      if (entry === kept && reusable) return;
      if (entry === kept) kept = undefined;
      await entry.input.close();
    },
  };
}

/** Close another job's input: its failure to close is no failure of the shard at hand. */
async function drop(entry: Entry): Promise<void> {
  if (kept === entry) kept = undefined;
  await entry.input.close().catch(() => undefined);
}
