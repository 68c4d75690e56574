/** The data the user can see: hosted image services and uploaded rasters, and a form to add more. */
import { canPublish } from "../auth/session.js";
import { useApp } from "../app/context.js";
import { ItemCard } from "./ItemCard.js";
import { Upload } from "./Upload.js";

export function DataBrowser() {
  const { items, itemsError, session, reloadItems } = useApp();
  const services = items.filter((i) => i.type === "Image Service");
  const rasters = items.filter((i) => i.type !== "Image Service");
  return (
    <div class="data">
      <section aria-labelledby="services-title">
        <div class="section-head">
          <h2 id="services-title">Image services</h2>
          <button type="button" onClick={reloadItems}>
            Refresh
          </button>
        </div>
        {itemsError && <p class="error">Could not list your data: {itemsError}</p>}
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
