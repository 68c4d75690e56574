/** What every view needs: the REST client, the session, and the items the user can see. */
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { RestClient } from "../api/client.js";
import type { Item } from "../api/types.js";
import type { Session } from "../auth/session.js";

export interface AppState {
  api: RestClient;
  session: Session;
  items: readonly Item[];
  itemsError?: string;
  reloadItems(): void;
  /** Say something to screen reader users (a polite live region). */
  announce(text: string): void;
}

export const AppContext = createContext<AppState | undefined>(undefined);

export function useApp(): AppState {
  const state = useContext(AppContext);
  if (!state) throw new Error("useApp outside the signed-in app");
  return state;
}
