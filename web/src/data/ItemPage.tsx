/**
 * One item on its own page (#/item?id=…): what it is (description, tags, owner, extent on a
 * map, variables and dimensions, the job that made it), its NetCDF download, and for its
 * owner the details editor, sharing and folder.
 */
import { useRef, useState } from "preact/hooks";
import { netcdfDownloadUrl } from "../api/imageService.js";
import { getItem, userContentOf } from "../api/portal.js";
import type { Folder, Item } from "../api/types.js";
import { useApp } from "../app/context.js";
import { navigate, routeHref } from "../app/route.js";
import { useAsync } from "../app/useAsync.js";
import { formatTime } from "../format.js";
import { ExtentMap } from "./ExtentMap.js";
import { extentText } from "./extentText.js";
import { ItemActions, useOwnsItem } from "./ItemActions.js";
import { ItemEditor } from "./ItemEditor.js";
import { ItemSharing } from "./ItemSharing.js";
import { describeService } from "./serviceCache.js";
import { VariablesTable } from "./VariablesTable.js";

/** The job that made an item, from the properties Strata (or the ArcGIS API for Python) wrote. */
function sourceJobOf(item: Item): { task: string; jobId: string } | undefined {
  const p = item.properties ?? {};
  const jobId = typeof p.jobId === "string" ? p.jobId : undefined;
  const task =
    typeof p.task === "string" ? p.task : typeof p.jobUrl === "string" ? /\/GPServer\/([^/]+)\/jobs\//.exec(p.jobUrl)?.[1] : undefined;
  return jobId && task ? { task, jobId } : undefined;
}

function ServiceFacts(props: { url: string; title: string }) {
  const { api } = useApp();
  const described = useAsync(props.url, () => describeService(api, props.url));
  if (described.error) return <p class="error">Could not read the service: {described.error}</p>;
  if (!described.data) return <p class="muted">Reading the service…</p>;
  const { info, variables } = described.data;
  return (
    <>
      <section class="card" aria-labelledby="extent-title">
        <h3 id="extent-title">Extent</h3>
        <p data-extent-text>{extentText(info.extent)}</p>
        <ExtentMap extent={info.extent} label={`The extent of ${props.title}: ${extentText(info.extent)}`} />
      </section>
      <section class="card" aria-label="Variables">
        <VariablesTable variables={variables} />
      </section>
    </>
  );
}

export function ItemPage(props: { id?: string }) {
  const { api, reloadItems } = useApp();
  const [version, setVersion] = useState(0);
  const [problem, setProblem] = useState<string>();
  const loaded = useAsync(props.id ? `${props.id}#${version}` : undefined, (signal) => getItem(api, props.id!, signal));
  // While it is read again after a change, the page keeps showing the item as it was.
  const last = useRef<Item>();
  if (loaded.data) last.current = loaded.data;
  const item = loaded.data ?? (last.current?.id === props.id ? last.current : undefined);
  const mine = useOwnsItem(item);
  const content = useAsync(mine ? `${item!.owner}#${version}` : undefined, (signal) => userContentOf(api, item!.owner, signal));
  const folders = useRef<readonly Folder[]>([]);
  if (content.data) folders.current = content.data.folders;
  const changed = () => {
    setVersion((v) => v + 1);
    reloadItems();
  };

  if (!props.id) return <p class="error">No item was named: open one from the data list.</p>;
  if (loaded.error) return <p class="error">Could not read the item: {loaded.error}</p>;
  if (!item) return <p class="muted">Reading the item…</p>;

  const service = item.type === "Image Service" && item.url ? item.url : undefined;
  const job = sourceJobOf(item);
  const folder = folders.current.find((f) => f.id === item.ownerFolder);

  return (
    <article class="item-page" data-item-id={item.id} aria-labelledby="item-title">
      <p>
        <a href={routeHref("data")}>← All data</a>
      </p>
      <h2 id="item-title">{item.title}</h2>
      <p class="muted">
        {item.type}
        {item.name ? ` · ${item.name}` : ""} · owner {item.owner} · <span data-access>{item.access}</span>
        {folder ? ` · folder ${folder.title}` : ""}
        {item.modified ? ` · modified ${formatTime(item.modified)}` : ""}
      </p>
      {item.description ? <p class="description">{item.description}</p> : <p class="muted">No description.</p>}
      <ul class="tags" aria-label="Tags">
        {(item.tags ?? []).map((t) => (
          <li key={t}>{t}</li>
        ))}
      </ul>
      {job && (
        <p>
          Made by the job <a href={routeHref("job", { task: job.task, id: job.jobId })}>{`${job.task} ${job.jobId}`}</a>
        </p>
      )}
      <ItemActions item={item} onProblem={setProblem} onDeleted={() => navigate("data")}>
        {service && (
          <a class="button" href={netcdfDownloadUrl(api, service)} download={`${item.name ?? "data"}.nc`} data-kind="netcdf">
            Download NetCDF
          </a>
        )}
      </ItemActions>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      {service ? (
        <ServiceFacts url={service} title={item.title} />
      ) : (
        <p class="muted">An uploaded raster: publish it as an image service to see its variables, map it and download it.</p>
      )}
      {mine && (
        <div class="item-owner">
          <ItemEditor key={item.id} item={item} onSaved={changed} />
          <ItemSharing item={item} folders={folders.current} onChanged={changed} />
        </div>
      )}
    </article>
  );
}
