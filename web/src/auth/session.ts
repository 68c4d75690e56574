/**
 * The signed-in session: the token lives in sessionStorage (per tab, gone when the tab
 * closes); signing out forgets it.
 */
const KEY = "strata.session";

export interface Session {
  token: string;
  /** Epoch ms. */
  expires: number;
  username: string;
  role: string;
}

export function loadSession(now = Date.now()): Session | undefined {
  try {
    const raw = sessionStorage.getItem(KEY);
    if (!raw) return undefined;
    const session = JSON.parse(raw) as Session;
    // A token about to expire is no use: ask again rather than fail mid-request.
    return typeof session.token === "string" && session.expires > now + 60_000 ? session : undefined;
  } catch {
    return undefined;
  }
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(KEY, JSON.stringify(session));
}

export function clearSession(): void {
  sessionStorage.removeItem(KEY);
}

/** Only publishers and administrators may run analysis and upload. */
export const canPublish = (session: Session | undefined): boolean => session?.role === "org_publisher" || session?.role === "org_admin";
