/**
 * Zarr's "zstd" codec, encoding through @bokuweb/zstd-wasm, which copies a chunk into wasm
 * memory in one call where numcodecs' build converts it byte by byte (the profile of a daily
 * anomaly put 14 % of all its time in that conversion); decoding stays with numcodecs, the
 * faster of the two at it (bench/codecs.ts measures both). Same format either way.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { compress, init } from "@bokuweb/zstd-wasm";
import Zstd from "numcodecs/zstd";
import { registry } from "zarrita";

let loaded: Promise<void> | undefined;

class ZstdCodec {
  readonly kind = "bytes_to_bytes";
  readonly #decoder: ReturnType<typeof Zstd.fromConfig>;

  constructor(readonly level: number) {
    this.#decoder = Zstd.fromConfig({ id: "zstd", level });
  }

  static fromConfig(configuration: { level?: number } = {}): ZstdCodec {
    return new ZstdCodec(configuration.level ?? 1);
  }

  encode(bytes: Uint8Array): Promise<Uint8Array> {
    return zstdEncode(bytes, this.level);
  }

  async decode(bytes: Uint8Array): Promise<Uint8Array> {
    return this.#decoder.decode(bytes);
  }
}

/** Make zarrita's arrays, read or written from here on, use this codec for "zstd". */
export function useFastZstd(): void {
  registry.set("zstd", async () => ZstdCodec as never);
}

/**
 * Compress `bytes` as the codec does: a fresh array, so `bytes` may be reused at once.
 * @example
 * const stored = await zstdEncode(new Uint8Array(chunk.buffer), 1);
 */
export async function zstdEncode(bytes: Uint8Array, level: number): Promise<Uint8Array> {
  await loadZstd();
  return compress(bytes, level);
}

/**
 * `bytes` compressed at `level`, once loadZstd has resolved, as a view of the compressor's
 * own memory valid until its next call: for a writer that writes the frame at once (the
 * chunk encoder). compress copies each frame out of the WebAssembly memory into a fresh
 * array, which cost ~0.2 ms a 1 MB anomaly chunk (1.60 against 1.80 ms) and left an encoder
 * thread tens of megabytes of garbage between collections. Through the package's Emscripten
 * module (dist/common/module.js, which it does not export by name), checked once against
 * compress on a known chunk; where it is not as expected, compress's fresh array.
 * @example
 * await loadZstd();
 * writeSync(fd, zstdFrame(chunk, 1));
 */
export function zstdFrame(bytes: Uint8Array, level: number): Uint8Array {
  const direct = (inPlace ??= zstdInPlace());
  return direct ? direct.compress(bytes, level) : compress(bytes, level);
}

/** The package's Emscripten module, as its own compress uses it. */
interface ZstdModule {
  readonly HEAPU8: Uint8Array;
  _malloc(size: number): number;
  _free(pointer: number): void;
  _ZSTD_compressBound(size: number): number;
  _ZSTD_compress(dst: number, capacity: number, src: number, size: number, level: number): number;
  _ZSTD_isError(code: number): number;
}

let inPlace: { compress(bytes: Uint8Array, level: number): Uint8Array } | null | undefined;

/** Compression into memory the module keeps (grown as chunks grow), or null when the module is not as expected. */
function zstdInPlace(): { compress(bytes: Uint8Array, level: number): Uint8Array } | null {
  let module: ZstdModule;
  try {
    const require = createRequire(import.meta.url);
    module = (require(join(dirname(require.resolve("@bokuweb/zstd-wasm")), "module.js")) as { Module: ZstdModule }).Module;
    const functions = [module._malloc, module._free, module._ZSTD_compressBound, module._ZSTD_compress, module._ZSTD_isError];
    if (!(module.HEAPU8 instanceof Uint8Array) || functions.some((f) => typeof f !== "function")) return null;
  } catch {
    return null;
  }
  let [src, srcSize, dst, dstSize] = [0, 0, 0, 0];
  const direct = {
    compress(bytes: Uint8Array, level: number): Uint8Array {
      if (bytes.length > srcSize) {
        if (src) module._free(src);
        [src, srcSize] = [module._malloc(bytes.length), bytes.length];
      }
      const bound = module._ZSTD_compressBound(bytes.length);
      if (bound > dstSize) {
        if (dst) module._free(dst);
        [dst, dstSize] = [module._malloc(bound), bound];
      }
      if (!src || !dst) throw new Error("zstd: no memory for a chunk");
      // HEAPU8 is read after each allocation: the module's memory may have grown.
      module.HEAPU8.set(bytes, src);
      const size = module._ZSTD_compress(dst, dstSize, src, bytes.length, level);
      if (module._ZSTD_isError(size)) throw new Error(`zstd: failed to compress (code ${size})`);
      return new Uint8Array(module.HEAPU8.buffer, dst, size);
    },
  };
  // The same frame as compress's, or not used at all.
  const known = Uint8Array.from({ length: 4096 }, (_, i) => (i * 31) % 251);
  try {
    const theirs = compress(known, 1);
    const ours = direct.compress(known, 1);
    if (ours.length !== theirs.length || ours.some((b, i) => b !== theirs[i])) return null;
  } catch {
    return null;
  }
  return direct;
}

/** The compressor's WebAssembly, loaded once (the encoder thread loads it as it starts). */
export function loadZstd(): Promise<void> {
  return (loaded ??= init());
}
