/** Edit an item's title, description and tags (the portal's item update). */
import { useState } from "preact/hooks";
import { updateItem } from "../api/portal.js";
import type { Item } from "../api/types.js";
import { useApp } from "../app/context.js";
import { errorText } from "../app/errors.js";

/** Tags typed comma-separated: trimmed, empty ones and repeats dropped. */
const parseTags = (text: string) => [...new Set(text.split(",").map((t) => t.trim()))].filter(Boolean);

export function ItemEditor(props: { item: Item; onSaved(): void }) {
  const { api, announce } = useApp();
  const { item } = props;
  const [title, setTitle] = useState(item.title);
  const [description, setDescription] = useState(item.description ?? "");
  const [tags, setTags] = useState((item.tags ?? []).join(", "));
  const [state, setState] = useState<{ text: string; error: boolean }>();
  const [busy, setBusy] = useState(false);

  async function save(e: Event) {
    e.preventDefault();
    if (title.trim() === "") return setState({ text: "The title cannot be empty.", error: true });
    setBusy(true);
    try {
      await updateItem(api, item.owner, item.id, { title: title.trim(), description, tags: parseTags(tags) });
      setState({ text: "Saved.", error: false });
      announce(`Saved ${title.trim()}.`);
      props.onSaved();
    } catch (err) {
      setState({ text: errorText(err), error: true });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="card item-editor" onSubmit={save} aria-labelledby="edit-title">
      <h3 id="edit-title">Details</h3>
      <label>
        Title
        <input name="title" value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
      </label>
      <label>
        Description
        <textarea name="description" rows={4} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </label>
      <label>
        Tags <span class="muted">(comma-separated)</span>
        <input name="tags" value={tags} onInput={(e) => setTags(e.currentTarget.value)} />
      </label>
      <button type="submit" disabled={busy}>
        {busy ? "Saving…" : "Save details"}
      </button>
      <p class={state?.error ? "error" : "ok"} role="status">
        {state?.text}
      </p>
    </form>
  );
}
