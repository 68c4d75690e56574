/**
 * Put the server's 400 beside the field it is about: its details name the parameter
 * ("outputName: the service name x is already taken", "iterationStep is required").
 */
import { ApiError } from "../api/client.js";

/** Parameter names the server also accepts (SPEC §6): the message may use either. */
const ALIASES: Readonly<Record<string, string>> = { dimensionDef: "dimensionDefinition" };

/** Which parameter a detail is about: the one it starts with, else the first one it mentions. */
export function parameterOf(detail: string, parameters: readonly string[]): string | undefined {
  const names = [...parameters, ...Object.keys(ALIASES)].sort((a, b) => b.length - a.length);
  const lower = detail.toLowerCase();
  const starts = names.find((n) => new RegExp(`^${n.toLowerCase()}\\b`).test(lower));
  const found = starts ?? names.find((n) => new RegExp(`\\b${n.toLowerCase()}\\b`).test(lower));
  return found === undefined ? undefined : (ALIASES[found] ?? found);
}

export interface ServerErrors {
  /** Messages by parameter name. */
  fields: Record<string, string>;
  /** What could not be tied to a field. */
  general: string[];
}

export function serverErrors(error: unknown, parameters: readonly string[]): ServerErrors {
  const out: ServerErrors = { fields: {}, general: [] };
  if (!(error instanceof ApiError)) {
    out.general.push(error instanceof Error ? error.message : String(error));
    return out;
  }
  const details = error.details.length ? error.details : [error.message];
  for (const detail of details) {
    const name = parameterOf(detail, parameters);
    if (name) out.fields[name] = out.fields[name] ? `${out.fields[name]} ${detail}` : detail;
    else out.general.push(detail);
  }
  return out;
}
