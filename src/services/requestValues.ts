/**
 * Plain request parameters of the image service operations (booleans, numbers, keywords):
 * absent means the default, anything unreadable is a 400 naming the parameter. Names match
 * whatever their case, as ArcGIS Server's do (`BBOX`, `imageSR` and `IMAGESR` alike: some
 * map clients send upper case).
 */
import { InvalidInputError } from "../cube/errors.js";

/**
 * "true"/"false" in any case.
 * @example
 * booleanParam("TRUE", false, "returnFirstValueOnly"); // true
 */
export function booleanParam(text: string | undefined, fallback: boolean, parameter: string): boolean {
  if (text === undefined || text.trim() === "") return fallback;
  const t = text.trim().toLowerCase();
  if (t === "true") return true;
  if (t === "false") return false;
  throw new InvalidInputError(`${parameter} must be true or false; got "${text}"`, { parameter });
}

/**
 * A finite number.
 * @example
 * numberParam("75", "compressionQuality"); // 75
 */
export function numberParam(text: string, parameter: string): number {
  const n = Number(text.trim());
  if (!Number.isFinite(n)) throw new InvalidInputError(`${parameter} must be a number; got "${text}"`, { parameter });
  return n;
}

/**
 * One of `allowed`, in any case.
 * @example
 * choiceParam("PNG32", "png", ["png", "png32"], "format"); // "png32"
 */
export function choiceParam<T extends string>(text: string | undefined, fallback: T, allowed: readonly T[], parameter: string): T {
  if (text === undefined || text.trim() === "") return fallback;
  const t = text.trim().toLowerCase();
  const found = allowed.find((a) => a.toLowerCase() === t);
  if (!found) throw new InvalidInputError(`${parameter} must be one of ${allowed.join(", ")}; got "${text}"`, { parameter });
  return found;
}

/**
 * A view of `params` where `view.bboxSR` also finds `BBOXSR` or `bboxsr`; keys and entries
 * stay as sent (so `{ ...view }` is plain data again, e.g. to hand to a work thread).
 * @example
 * caseInsensitive({ BBOXSR: "4326" }).bboxSR; // "4326"
 */
export function caseInsensitive(params: Record<string, string>): Record<string, string> {
  const byLower = new Map(Object.keys(params).map((k) => [k.toLowerCase(), k]));
  return new Proxy(params, {
    get(target, name) {
      if (typeof name !== "string" || name in target) return Reflect.get(target, name);
      const key = byLower.get(name.toLowerCase());
      return key === undefined ? undefined : target[key];
    },
  });
}
