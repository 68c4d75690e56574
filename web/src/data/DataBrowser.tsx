/**
 * The data the user can see: hosted image services and uploaded rasters (all, or one of the
 * user's folders), the folders, and a form to add more.
 */
import { useMemo, useState } from "preact/hooks";
import { userContentOf } from "../api/portal.js";
import { canPublish } from "../auth/session.js";
import { useApp } from "../app/context.js";
import { useAsync } from "../app/useAsync.js";
import { Folders } from "./Folders.js";
import { ItemCard } from "./ItemCard.js";
import { Upload } from "./Upload.js";

export function DataBrowser(props: { folder?: string }) {
  const { api, items: all, itemsError, session, reloadItems } = useApp();
  const [version, setVersion] = useState(0);
  const content = useAsync(`${session.username}#${version}#${all.length}`, (signal) => userContentOf(api, session.username, signal));
  const folders = content.data?.folders ?? [];
  const counts = useMemo(() => {
    const n = new Map<string, number>();
    for (const i of all) if (i.ownerFolder) n.set(i.ownerFolder, (n.get(i.ownerFolder) ?? 0) + 1);
    return n;
  }, [all]);
  const folder = folders.find((f) => f.id === props.folder);
  const items = props.folder ? all.filter((i) => i.ownerFolder === props.folder) : all;
  const services = items.filter((i) => i.type === "Image Service");
  const rasters = items.filter((i) => i.type !== "Image Service");
  return (
    <div class="data">
      <Folders
        folders={folders}
        current={props.folder}
        counts={counts}
        onChanged={() => {
          setVersion((v) => v + 1);
          reloadItems();
        }}
      />
      <section aria-labelledby="services-title">
        <div class="section-head">
          <h2 id="services-title">{folder ? `Image services in ${folder.title}` : "Image services"}</h2>
          <button type="button" onClick={reloadItems}>
            Refresh
          </button>
        </div>
        {itemsError && <p class="error">Could not list your data: {itemsError}</p>}
        {content.error && <p class="error">Could not list your folders: {content.error}</p>}
        {folder && items.length === 0 && <p class="muted">This folder is empty: move items here from their page.</p>}
        <ul class="items">
          {services.map((i) => (
            <ItemCard key={i.id} item={i} />
          ))}
        </ul>
        {rasters.length > 0 && (
          <>
            <h2>Uploaded rasters</h2>
            <ul class="items">
              {rasters.map((i) => (
                <ItemCard key={i.id} item={i} />
              ))}
            </ul>
          </>
        )}
      </section>
      {canPublish(session) && <Upload />}
    </div>
  );
}
