/**
 * Who may see an item (private, the organisation, everyone: the portal's share) and which of
 * the owner's folders holds it (the portal's move).
 */
import { useEffect, useState } from "preact/hooks";
import { moveItem, shareItem } from "../api/portal.js";
import type { Access, Folder, Item } from "../api/types.js";
import { useApp } from "../app/context.js";
import { errorText } from "../app/errors.js";

const LEVELS: readonly { access: Access; label: string; help: string }[] = [
  { access: "private", label: "Private", help: "only you (and administrators)" },
  { access: "org", label: "Organisation", help: "everyone signed in to this Strata" },
  { access: "public", label: "Public", help: "anyone, without signing in, when the server allows anonymous access" },
];

export function ItemSharing(props: { item: Item; folders: readonly Folder[]; onChanged(): void }) {
  const { api, announce } = useApp();
  const { item } = props;
  const [state, setState] = useState<{ text: string; error: boolean }>();
  const [busy, setBusy] = useState(false);
  // The level asked for shows at once; the item's own once it is read again (or on failure).
  const [asked, setAsked] = useState<Access>();
  const shown = asked ?? item.access;
  useEffect(() => setAsked(undefined), [item.access]);

  async function act(work: () => Promise<unknown>, done: string) {
    setBusy(true);
    try {
      await work();
      setState({ text: done, error: false });
      announce(done);
      props.onChanged();
    } catch (err) {
      setAsked(undefined);
      setState({ text: errorText(err), error: true });
    } finally {
      setBusy(false);
    }
  }

  const share = (access: Access) => {
    setAsked(access);
    return act(
      () => shareItem(api, item.owner, item.id, access),
      `Shared with ${LEVELS.find((l) => l.access === access)!.label.toLowerCase()}.`,
    );
  };
  const move = (folderId: string) =>
    act(
      () => moveItem(api, item.owner, item.id, folderId || null),
      `Moved to ${folderId ? props.folders.find((f) => f.id === folderId)?.title : "the root folder"}.`,
    );

  return (
    <section class="card item-sharing" aria-labelledby="share-title">
      <h3 id="share-title">Share</h3>
      <fieldset disabled={busy}>
        <legend>Who can see it</legend>
        {LEVELS.map((l) => (
          <label key={l.access} class="inline">
            <input type="radio" name="access" value={l.access} checked={shown === l.access} onChange={() => void share(l.access)} />
            {l.label} <span class="muted">— {l.help}</span>
          </label>
        ))}
      </fieldset>
      <label>
        Folder
        <select name="folder" disabled={busy} value={item.ownerFolder ?? ""} onChange={(e) => void move(e.currentTarget.value)}>
          <option value="">(root)</option>
          {props.folders.map((f) => (
            <option key={f.id} value={f.id}>
              {f.title}
            </option>
          ))}
        </select>
      </label>
      <p class={state?.error ? "error" : "ok"} role="status">
        {state?.text}
      </p>
    </section>
  );
}
