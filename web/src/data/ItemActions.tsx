/** What can be done with an item, on its card and its page: show it on the map, analyse it, delete it (its owner). */
import type { ComponentChildren } from "preact";
import { deleteItem } from "../api/portal.js";
import type { Item } from "../api/types.js";
import { useApp } from "../app/context.js";
import { errorText } from "../app/errors.js";
import { navigate } from "../app/route.js";

/** Whether the signed-in user may change or delete the item. */
export function useOwnsItem(item: Item | undefined): boolean {
  const { session } = useApp();
  return item !== undefined && (item.owner === session.username || session.role === "org_admin");
}

/**
 * @param children more actions, after "Show on map"
 * @param onProblem told why a deletion failed
 * @param onDeleted after the item is gone
 */
export function ItemActions(props: { item: Item; children?: ComponentChildren; onProblem(text: string): void; onDeleted?(): void }) {
  const { api, reloadItems, announce } = useApp();
  const { item } = props;
  const mine = useOwnsItem(item);
  const service = item.type === "Image Service" ? item.url : null;

  async function remove() {
    if (!confirm(`Delete “${item.title}”? This cannot be undone.`)) return;
    try {
      await deleteItem(api, item.owner, item.id);
      announce(`Deleted ${item.title}.`);
      reloadItems();
      props.onDeleted?.();
    } catch (e) {
      props.onProblem(errorText(e));
    }
  }

  return (
    <div class="actions">
      {service && (
        <button type="button" class="primary" onClick={() => navigate("map", { left: service })}>
          Show on map
        </button>
      )}
      {props.children}
      <button type="button" onClick={() => navigate("analysis", { input: item.id })}>
        Analyse
      </button>
      {mine && (
        <button type="button" class="danger" onClick={() => void remove()}>
          Delete
        </button>
      )}
    </div>
  );
}
