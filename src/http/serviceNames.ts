/**
 * Who holds a new hosted service name (issue 10 §3): an existing service, a job not yet
 * finished that will create it (its record is the reservation, released by any terminal
 * state), or a publication of an uploaded item still converting in this process. Job submit
 * and publish both ask here, synchronously right before they claim the name, so neither
 * runs to the end to find the name taken by the other.
 */
import { InvalidInputError } from "../cube/errors.js";
import { activeJobWithOption } from "../jobs/jobStore.js";
import { getItemByServiceName } from "../portal/items.js";
import type { MetadataDb } from "../store/metadataDb.js";

/** Names a publish in this process is converting for, lower case (names are unique in any case). */
const publishing = new Set<string>();

/**
 * Throws a 400 naming `parameter` (`label` in the message) when `name` is held, saying by what.
 * @example
 * refuseHeldServiceName(db, "sst_anomaly", "outputName");
 */
export function refuseHeldServiceName(db: MetadataDb, name: string, parameter: string, label = parameter): void {
  const why = getItemByServiceName(db, name)
    ? "is already taken"
    : activeJobWithOption(db, "$.output.serviceName", name)
      ? "is the output of a job that has not finished"
      : publishing.has(name.toLowerCase())
        ? "is being published right now"
        : undefined;
  if (why) throw new InvalidInputError(`${label}: the service name ${name} ${why}`, { parameter });
}

/**
 * Check and hold `name` for a publication that takes a while; call the returned function
 * when it has created its item or failed.
 * @example
 * const release = holdServiceName(db, "sst", "publishParameters");
 * try { await convertAndPublish(); } finally { release(); }
 */
export function holdServiceName(db: MetadataDb, name: string, parameter: string, label = parameter): () => void {
  refuseHeldServiceName(db, name, parameter, label);
  const key = name.toLowerCase();
  publishing.add(key);
  return () => publishing.delete(key);
}
