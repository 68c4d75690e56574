/**
 * A bounded cache of rendered images, least recently used first out, by total bytes. Keys
 * name a dataset and a request, and datasets never change (an update makes a new one), so
 * an entry is never stale: the key doubles as the image's ETag.
 */
import { createHash } from "node:crypto";
import type { ExportedImage } from "./exportImage.js";

export interface ImageCache {
  /** The image of `key`, if it is held and was drawn from `datasetId` (an image belongs to its service's data). */
  get(key: string, datasetId: string): ExportedImage | undefined;
  set(key: string, datasetId: string, image: ExportedImage): void;
  /**
   * The image of `key`: held, being drawn for another request (one drawing serves every
   * identical request that arrives meanwhile), or drawn now by `draw` and kept.
   */
  draw(key: string, datasetId: string, draw: () => Promise<ExportedImage>): Promise<ExportedImage>;
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
  const entries = new Map<string, { image: ExportedImage; datasetId: string }>();
  const drawing = new Map<string, Promise<ExportedImage>>();
  // One huge image must not push out the many small ones maps ask for again and again.
  const largest = maxBytes / 8;
  let bytes = 0;
  const cache: ImageCache = {
    get(key, datasetId) {
      const hit = entries.get(key);
      if (!hit || hit.datasetId !== datasetId) return undefined;
      entries.delete(key);
      entries.set(key, hit);
      return hit.image;
    },
    set(key, datasetId, image) {
      if (image.bytes.byteLength > largest) return;
      const old = entries.get(key);
      if (old) {
        bytes -= old.image.bytes.byteLength;
        entries.delete(key);
      }
      entries.set(key, { image, datasetId });
      bytes += image.bytes.byteLength;
      for (const [k, v] of entries) {
        if (bytes <= maxBytes) break;
        entries.delete(k);
        bytes -= v.image.bytes.byteLength;
      }
    },
    draw(key, datasetId, draw) {
      const held = cache.get(key, datasetId);
      if (held) return Promise.resolve(held);
      let pending = drawing.get(key);
      if (!pending) {
        pending = draw()
          .then((image) => {
            cache.set(key, datasetId, image);
            return image;
          })
          .finally(() => drawing.delete(key));
        drawing.set(key, pending);
      }
      return pending;
    },
    size: () => bytes,
  };
  return cache;
}
