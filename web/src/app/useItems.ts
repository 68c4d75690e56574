/** The items the user can see (portal search), reloaded on demand. */
import { useCallback, useEffect, useState } from "preact/hooks";
import type { RestClient } from "../api/client.js";
import { searchItems } from "../api/portal.js";
import type { Item } from "../api/types.js";
import { forgetServices } from "../data/serviceCache.js";
import { errorText } from "./errors.js";

export function useItems(api: RestClient, enabled: boolean) {
  const [items, setItems] = useState<Item[]>([]);
  const [error, setError] = useState<string>();
  const [version, setVersion] = useState(0);
  useEffect(() => {
    if (!enabled) return;
    const controller = new AbortController();
    searchItems(api, controller.signal).then(
      (found) => {
        setItems(found);
        setError(undefined);
      },
      (e: unknown) => controller.signal.aborted || setError(errorText(e)),
    );
    return () => controller.abort();
  }, [api, enabled, version]);
  const reload = useCallback(() => {
    // Services may have been replaced or deleted: read them again.
    forgetServices();
    setVersion((v) => v + 1);
  }, []);
  return { items, error, reload };
}
