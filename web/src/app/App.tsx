/**
 * The app shell: sign-in, then a header with the views (data, analysis, map; an item's and a
 * job's own pages are reached from them), the user and
 * a polite live region for announcements; the jobs are followed whichever view is shown.
 */
import { useCallback, useMemo, useRef, useState } from "preact/hooks";
import { RestClient, restBase } from "../api/client.js";
import { SignIn } from "../auth/SignIn.js";
import { type Session, clearSession, loadSession, saveSession } from "../auth/session.js";
import { DataBrowser } from "../data/DataBrowser.js";
import { ItemPage } from "../data/ItemPage.js";
import { forgetServices } from "../data/serviceCache.js";
import { JobPage } from "../jobs/JobPage.js";
import { isActive } from "../jobs/jobModel.js";
import { useJobs } from "../jobs/useJobs.js";
import { MapView } from "../map/MapView.js";
import { AnalysisView } from "../tasks/AnalysisView.js";
import { useTasks } from "../tasks/useTasks.js";
import { AppContext, type AppState } from "./context.js";
import { type View, routeHref, useRoute } from "./route.js";
import { useItems } from "./useItems.js";

const VIEWS: readonly { view: View; label: string }[] = [
  { view: "data", label: "Data" },
  { view: "analysis", label: "Analysis" },
  { view: "map", label: "Map" },
];

const NO_TASKS: readonly string[] = [];

export function App() {
  const [session, setSession] = useState<Session | undefined>(() => loadSession());
  const [announcement, setAnnouncement] = useState("");
  const signOut = useCallback(() => {
    clearSession();
    forgetServices();
    setSession(undefined);
  }, []);
  const api = useMemo(() => new RestClient(restBase(location), () => session?.token, signOut), [session, signOut]);
  const announce = useCallback((text: string) => setAnnouncement(text), []);
  const route = useRoute();
  // The Map link goes back to the services last shown there.
  const lastMap = useRef<Record<string, string>>({});
  if (route.view === "map") lastMap.current = Object.fromEntries(route.params);
  const { items, error: itemsError, reload } = useItems(api, session !== undefined);
  const tasks = useTasks(api, session ? session.token : "signed-out");
  const taskNames = useMemo(() => (tasks.data ?? []).map((t) => t.name), [tasks.data]);
  const jobs = useJobs(api, session ? taskNames : NO_TASKS, announce, reload);

  if (!session) {
    return (
      <main id="main" class="signed-out">
        <SignIn
          api={api}
          onSignedIn={(s) => {
            saveSession(s);
            setSession(s);
          }}
        />
      </main>
    );
  }

  const state: AppState = { api, session, items, itemsError, reloadItems: reload, announce };
  const running = jobs.rows.filter((r) => isActive(r.status)).length;
  return (
    <AppContext.Provider value={state}>
      <a class="skip-link" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById("main")?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Strata</span>
        <nav aria-label="Views">
          {VIEWS.map(({ view, label }) => (
            <a
              key={view}
              href={routeHref(view, view === "map" ? lastMap.current : {})}
              aria-current={route.view === view || (view === "data" && route.view === "item") ? "page" : undefined}
            >
              {label}
              {view === "analysis" && running > 0 && <span class="count"> ({running} running)</span>}
            </a>
          ))}
        </nav>
        <span class="user">
          <span class="muted">Signed in as</span> <strong data-username>{session.username}</strong>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </span>
      </header>
      <main id="main" tabIndex={-1}>
        {route.view === "data" && <DataBrowser folder={route.params.get("folder") ?? undefined} />}
        {route.view === "item" && <ItemPage key={route.params.get("id")} id={route.params.get("id") ?? undefined} />}
        {route.view === "job" && <JobPage task={route.params.get("task") ?? undefined} id={route.params.get("id") ?? undefined} />}
        {route.view === "analysis" && (
          <AnalysisView
            tasks={tasks.data ?? []}
            tasksError={tasks.error}
            jobs={jobs}
            task={route.params.get("task") ?? undefined}
            input={route.params.get("input") ?? undefined}
          />
        )}
        {route.view === "map" && <MapView left={route.params.get("left") ?? undefined} right={route.params.get("right") ?? undefined} />}
      </main>
      <div class="visually-hidden" aria-live="polite" role="status" id="announcer">
        {announcement}
      </div>
    </AppContext.Provider>
  );
}
