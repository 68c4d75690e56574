/**
 * Who holds a new hosted service name (issue 10 §3): an existing service (an empty one made
 * by createService included), a job not yet finished that will create it (its record is the
 * reservation, released by any terminal state), or a publication of an uploaded item still
 * converting in this process. Job submit and createService ask here inside the transaction
 * that claims the name (transactions are serialised, on SQLite and on PostgreSQL), and publish
 * right before it holds it, so none runs to the end to find the name taken by another;
 * isServiceNameAvailable answers from the same rule. The publish hold is this process's
 * only: with several API nodes, a publish on another node is stopped by the unique key on
 * service names when it creates its item, not at its start.
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
 * await refuseHeldServiceName(db, "sst_anomaly", "outputName");
 */
export async function refuseHeldServiceName(db: MetadataDb, name: string, parameter: string, label = parameter): Promise<void> {
  const why = await serviceNameHolder(db, name);
  if (why) throw new InvalidInputError(`${label}: the service name ${name} ${why}`, { parameter });
}

/**
 * What holds `name`, in words that complete "the service name x ...", or undefined when it is
 * free (what isServiceNameAvailable answers).
 * @example
 * await serviceNameHolder(db, "sst_anomaly"); // "is already taken"
 */
export async function serviceNameHolder(db: MetadataDb, name: string): Promise<string | undefined> {
  if (await getItemByServiceName(db, name)) return "is already taken";
  if (await activeJobWithOption(db, "$.output.serviceName", name)) return "is the output of a job that has not finished";
  if (publishing.has(name.toLowerCase())) return "is being published right now";
  return undefined;
}

/**
 * Check and hold `name` for a publication that takes a while; call the returned function
 * when it has created its item or failed.
 * @example
 * const release = await holdServiceName(db, "sst", "publishParameters");
 * try { await convertAndPublish(); } finally { release(); }
 */
export async function holdServiceName(db: MetadataDb, name: string, parameter: string, label = parameter): Promise<() => void> {
  await refuseHeldServiceName(db, name, parameter, label);
  const key = name.toLowerCase();
  // Checked again: another request of this process may have taken it while the database answered.
  if (publishing.has(key)) throw new InvalidInputError(`${label}: the service name ${name} is being published right now`, { parameter });
  publishing.add(key);
  return () => publishing.delete(key);
}
