/**
 * Zarr's "zstd" codec, encoding through @bokuweb/zstd-wasm, which copies a chunk into wasm
 * memory in one call where numcodecs' build converts it byte by byte (the profile of a daily
 * anomaly put 14 % of all its time in that conversion); decoding stays with numcodecs, the
 * faster of the two at it (bench/codecs.ts measures both). Same format either way.
 */
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

/** zstdEncode at once, once loadZstd has resolved (a caller that must not wait between filling `bytes` and compressing them). */
export function zstdEncodeLoaded(bytes: Uint8Array, level: number): Uint8Array {
  return compress(bytes, level);
}

/** The compressor's WebAssembly, loaded once (the encoder thread loads it as it starts). */
export function loadZstd(): Promise<void> {
  return (loaded ??= init());
}
