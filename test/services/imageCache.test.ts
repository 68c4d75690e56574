/**
 * The exportImage cache: keys ignore f, token and parameter case and order but not values;
 * the least recently used images go first once the bytes pass the bound; an image larger
 * than the bound is not kept.
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
    cache.set("a", image(40));
    cache.set("b", image(40));
    assert.ok(cache.get("a")); // a is now the most recently used
    cache.set("c", image(40)); // 120 bytes: b goes
    assert.equal(cache.get("b"), undefined);
    assert.ok(cache.get("a"));
    assert.ok(cache.get("c"));
    assert.equal(cache.size(), 80);
    cache.set("a", image(10)); // replacing counts the new size only
    assert.equal(cache.size(), 50);
  });

  it("does not keep an image larger than the bound", () => {
    const cache = imageCache(100);
    cache.set("big", image(101));
    assert.equal(cache.get("big"), undefined);
    assert.equal(cache.size(), 0);
  });
});
