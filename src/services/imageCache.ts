/**
 * A bounded cache of rendered images, least recently used first out, by total bytes. Keys
 * name a dataset and a request, and datasets never change (an update makes a new one), so
 * an entry is never stale: the key doubles as the image's ETag.
 */
import { createHash } from "node:crypto";
import type { ExportedImage } from "./exportImage.js";

export interface ImageCache {
  get(key: string): ExportedImage | undefined;
  set(key: string, image: ExportedImage): void;
  /** Bytes held. */
  size(): number;
}

/** Parameters that do not change the image. */
const IGNORED = new Set(["f", "token", "callback", "_", "_ts"]);

/**
 * The key of an image: a hash of the dataset id and the request's parameters (names
 * lower-cased, sorted; f and token left out).
 * @example
 * imageKey("ds-1", { bbox: "0,0,1,1", size: "256,256", f: "image" });
 */
export function imageKey(datasetId: string, params: Record<string, string>): string {
  const entries = Object.entries(params)
    .map(([k, v]) => [k.toLowerCase(), v.trim()] as const)
    .filter(([k, v]) => !IGNORED.has(k) && v !== "")
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash("sha256")
    .update(JSON.stringify([datasetId, entries]))
    .digest("base64url")
    .slice(0, 32);
}

/**
 * @example
 * const cache = imageCache(64 * 1024 * 1024);
 * cache.set(key, image); cache.get(key);
 */
export function imageCache(maxBytes: number): ImageCache {
  const entries = new Map<string, ExportedImage>();
  let bytes = 0;
  return {
    get(key) {
      const hit = entries.get(key);
      if (hit) {
        entries.delete(key);
        entries.set(key, hit);
      }
      return hit;
    },
    set(key, image) {
      if (image.bytes.byteLength > maxBytes) return;
      const old = entries.get(key);
      if (old) {
        bytes -= old.bytes.byteLength;
        entries.delete(key);
      }
      entries.set(key, image);
      bytes += image.bytes.byteLength;
      for (const [k, v] of entries) {
        if (bytes <= maxBytes) break;
        entries.delete(k);
        bytes -= v.bytes.byteLength;
      }
    },
    size: () => bytes,
  };
}
