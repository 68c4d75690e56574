/** One service or raster item: a preview, what it holds, and what can be done with it. */
import { useState } from "preact/hooks";
import { thumbnailUrl } from "../api/imageService.js";
import { publishItem } from "../api/portal.js";
import type { Item } from "../api/types.js";
import { useApp } from "../app/context.js";
import { errorText } from "../app/errors.js";
import { routeHref } from "../app/route.js";
import { useAsync } from "../app/useAsync.js";
import { formatValue } from "../format.js";
import { SERVICE_NAME } from "../tasks/values.js";
import { extentText } from "./extentText.js";
import { ItemActions, useOwnsItem } from "./ItemActions.js";
import { describeService } from "./serviceCache.js";
import { suggestServiceName } from "./names.js";

function Summary(props: { url: string }) {
  const { api } = useApp();
  const described = useAsync(props.url, () => describeService(api, props.url));
  if (described.error) return <p class="error">{described.error}</p>;
  if (!described.data) return <p class="muted">Reading…</p>;
  const { info, variables } = described.data;
  return (
    <>
      <img
        class="thumb"
        src={thumbnailUrl(api, props.url, info.extent)}
        alt={`Preview of ${info.name}`}
        width={200}
        height={100}
        loading="lazy"
      />
      <ul class="facts">
        {variables.map((v) => (
          <li key={v.name}>
            <strong>{v.name}</strong>
            {v.unit ? ` (${v.unit})` : ""}:{" "}
            {v.dimensions
              .map(
                (d) =>
                  `${d.values.length} ${d.name} ${formatValue(d.name, d.values[0])} – ${formatValue(d.name, d.values[d.values.length - 1])}`,
              )
              .join("; ")}
          </li>
        ))}
        <li>Extent: {extentText(info.extent)}</li>
      </ul>
    </>
  );
}

export function ItemCard(props: { item: Item }) {
  const { api, reloadItems, announce } = useApp();
  const { item } = props;
  const [problem, setProblem] = useState<string>();
  const [name, setName] = useState(() => suggestServiceName(item.title));
  const mine = useOwnsItem(item);
  const service = item.type === "Image Service" && item.url;
  const headingId = `item-${item.id}`;

  async function publish(e: Event) {
    e.preventDefault();
    if (!SERVICE_NAME.test(name)) return setProblem("A service name is letters, digits and underscores (at most 120).");
    try {
      await publishItem(api, item.owner, item.id, name);
      announce(`Published ${name}.`);
      reloadItems();
    } catch (err) {
      setProblem(errorText(err));
    }
  }

  return (
    <li class="card item" aria-labelledby={headingId} data-item-id={item.id}>
      <h3 id={headingId}>
        <a href={routeHref("item", { id: item.id })}>{item.title}</a>
      </h3>
      <p class="muted">
        {item.type}
        {item.name ? ` · ${item.name}` : ""} · {item.owner} · {item.access}
      </p>
      {service ? <Summary url={item.url!} /> : null}
      <ItemActions item={item} onProblem={setProblem} />
      {!service && mine && (
        <form class="publish" onSubmit={publish}>
          <label>
            Service name
            <input value={name} onInput={(e) => setName(e.currentTarget.value)} autoComplete="off" />
          </label>
          <button type="submit">Publish as an image service</button>
        </form>
      )}
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </li>
  );
}
