/**
 * The user's folders (the portal's: a flat list per owner): pick one to see what it holds,
 * make a new one, delete an empty one. Items move between folders on their item page.
 */
import { useState } from "preact/hooks";
import { createFolder, deleteFolder } from "../api/portal.js";
import type { Folder } from "../api/types.js";
import { useApp } from "../app/context.js";
import { errorText } from "../app/errors.js";
import { navigate, routeHref } from "../app/route.js";

export function Folders(props: { folders: readonly Folder[]; current?: string; counts: ReadonlyMap<string, number>; onChanged(): void }) {
  const { api, session, announce } = useApp();
  const [title, setTitle] = useState("");
  const [problem, setProblem] = useState<string>();
  const current = props.folders.find((f) => f.id === props.current);

  async function create(e: Event) {
    e.preventDefault();
    setProblem(undefined);
    if (title.trim() === "") return setProblem("Name the folder.");
    try {
      const { folder } = await createFolder(api, session.username, title.trim());
      announce(`Created the folder ${folder.title}.`);
      setTitle("");
      props.onChanged();
      navigate("data", { folder: folder.id });
    } catch (err) {
      setProblem(errorText(err));
    }
  }

  async function remove(folder: Folder) {
    setProblem(undefined);
    try {
      await deleteFolder(api, session.username, folder.id);
      announce(`Deleted the folder ${folder.title}.`);
      props.onChanged();
      navigate("data");
    } catch (err) {
      setProblem(errorText(err));
    }
  }

  return (
    <nav class="folders card" aria-label="Folders">
      <h2>Folders</h2>
      <ul>
        <li>
          <a href={routeHref("data")} aria-current={props.current ? undefined : "page"}>
            All data
          </a>
        </li>
        {props.folders.map((f) => (
          <li key={f.id} data-folder-id={f.id}>
            <a href={routeHref("data", { folder: f.id })} aria-current={f.id === props.current ? "page" : undefined}>
              {f.title}
            </a>{" "}
            <span class="muted">({props.counts.get(f.id) ?? 0})</span>
          </li>
        ))}
      </ul>
      {current && (
        <button
          type="button"
          class="danger small"
          disabled={(props.counts.get(current.id) ?? 0) > 0}
          title={(props.counts.get(current.id) ?? 0) > 0 ? "Move or delete its items first" : undefined}
          onClick={() => void remove(current)}
        >
          Delete the folder {current.title}
        </button>
      )}
      <form class="new-folder" onSubmit={create}>
        <label>
          New folder
          <input name="folderTitle" value={title} autoComplete="off" onInput={(e) => setTitle(e.currentTarget.value)} />
        </label>
        <button type="submit" class="small">
          Create
        </button>
      </form>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </nav>
  );
}
