/**
 * Work over a list at most `lanes` items at once: each lane takes the next item when its last
 * is done, so items start in order. A failure rejects the whole at once (the lanes still
 * running finish their current item and stop at the next).
 * @example
 * await inLanes(files, 8, (f) => upload(f));
 */
export async function inLanes<T>(items: readonly T[], lanes: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  const lane = async (): Promise<void> => {
    try {
      while (!failed && next < items.length) await work(items[next++]);
    } catch (e) {
      failed = true;
      throw e;
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, items.length) }, lane));
}
