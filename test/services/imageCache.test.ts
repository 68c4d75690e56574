/**
 * The exportImage cache: keys ignore f, token and parameter case and order but not values;
 * the least recently used images go first once the bytes pass the bound; a huge image is
 * not kept; an image belongs to its dataset; identical concurrent requests draw once.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ExportedImage } from "../../src/services/exportImage.js";
import { imageCache, imageKey } from "../../src/services/imageCache.js";

const image = (bytes: number): ExportedImage => ({ bytes: new Uint8Array(bytes), contentType: "image/png", extension: "png" });

describe("imageKey", () => {
  it("names the dataset and the drawing parameters only", () => {
    const a = imageKey("ds1", { bbox: "0,0,1,1", size: "256,256", f: "image", token: "t1" });
    assert.equal(imageKey("ds1", { SIZE: "256,256", BBOX: "0,0,1,1", f: "json", token: "t2" }), a);
    assert.notEqual(imageKey("ds1", { bbox: "0,0,1,2", size: "256,256" }), a);
    assert.notEqual(imageKey("ds2", { bbox: "0,0,1,1", size: "256,256" }), a);
  });
});

describe("imageCache", () => {
  it("evicts the least recently used images past its byte bound", () => {
    const cache = imageCache(100);
    cache.set("a", "ds", image(12));
    cache.set("b", "ds", image(12));
    assert.ok(cache.get("a", "ds")); // a is now the most recently used
    for (const k of ["c", "d", "e", "f", "g", "h", "i"]) cache.set(k, "ds", image(12)); // 108 bytes: b goes
    assert.equal(cache.get("b", "ds"), undefined);
    assert.ok(cache.get("a", "ds"));
    assert.ok(cache.get("i", "ds"));
    assert.equal(cache.size(), 96);
    cache.set("a", "ds", image(2)); // replacing counts the new size only
    assert.equal(cache.size(), 86);
  });

  it("does not keep an image larger than an eighth of the bound, so one huge image pushes out no small ones", () => {
    const cache = imageCache(100);
    cache.set("small", "ds", image(10));
    cache.set("big", "ds", image(13));
    assert.equal(cache.get("big", "ds"), undefined);
    assert.ok(cache.get("small", "ds"));
    assert.equal(cache.size(), 10);
  });

  it("answers an image only for the dataset it was drawn from", () => {
    const cache = imageCache(100);
    cache.set("k", "private-ds", image(10));
    assert.equal(cache.get("k", "other-ds"), undefined);
    assert.ok(cache.get("k", "private-ds"));
  });

  it("draws once for identical requests that arrive while it draws", async () => {
    const cache = imageCache(100);
    let draws = 0;
    const draw = async () => {
      draws++;
      await new Promise((r) => setTimeout(r, 20));
      return image(10);
    };
    const [a, b] = await Promise.all([cache.draw("k", "ds", draw), cache.draw("k", "ds", draw)]);
    assert.equal(a, b);
    assert.equal(draws, 1);
    assert.equal(await cache.draw("k", "ds", draw), a); // held now
    assert.equal(draws, 1);
  });
});
