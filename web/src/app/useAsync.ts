/** Run a load when its key changes, abort the previous one, and keep its result or error. */
import { useEffect, useState } from "preact/hooks";
import { errorText } from "./errors.js";

export interface Async<T> {
  data?: T;
  error?: string;
  loading: boolean;
}

export function useAsync<T>(key: string | undefined, load: (signal: AbortSignal) => Promise<T>): Async<T> {
  const [state, setState] = useState<Async<T>>({ loading: key !== undefined });
  useEffect(() => {
    if (key === undefined) {
      setState({ loading: false });
      return;
    }
    const controller = new AbortController();
    setState({ loading: true });
    load(controller.signal).then(
      (data) => controller.signal.aborted || setState({ data, loading: false }),
      (e: unknown) => controller.signal.aborted || setState({ error: errorText(e), loading: false }),
    );
    return () => controller.abort();
    // The key names the load; the function itself changes on every render.
  }, [key]);
  return state;
}
