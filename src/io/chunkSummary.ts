/**
 * A summary of an output chunk's values (the output's statistics) computed by whichever
 * thread encodes the chunk (io/chunkEncoder.ts), so the job's thread does not: the summary's
 * function is named by its module's URL, which the encoder's thread imports, keeping this
 * layer free of what the summary is.
 */
import type { ChunkRegion, ChunkSummarizer } from "../cube/chunkSummaries.js";
import type { TypedArray } from "../cube/types.js";

/** A summary of `values` (a chunk, C order) over `region`; its result must survive structured cloning. */
type ChunkSummaryFunction = (values: TypedArray, region: ChunkRegion, options: unknown) => unknown;

/** A chunk to summarize as the encoder sees it: the summarizer, the chunk's element type (a typed array's name) and its region. */
export interface ChunkSummaryRequest extends ChunkRegion {
  readonly summarizer: ChunkSummarizer;
  readonly type: string;
}

type ElementType = { new (buffer: ArrayBufferLike, offset: number, length: number): TypedArray; readonly BYTES_PER_ELEMENT: number };
const ELEMENT_TYPES: Record<string, ElementType> = Object.fromEntries(
  [Int8Array, Uint8Array, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array].map((T) => [
    T.name,
    T as ElementType,
  ]),
);

const loaded = new Map<string, Promise<ChunkSummaryFunction>>();

/**
 * The summary `request` asks for, loaded: a function of the chunk's bytes (in a buffer of the
 * encoder's or in shared memory, aligned to its element type; called synchronously, while
 * they hold the chunk).
 * @example
 * const summary = (await chunkSummary(request))(new Uint8Array(buffer, 0, 4 * 259200));
 */
export async function chunkSummary(request: ChunkSummaryRequest): Promise<(bytes: Uint8Array) => unknown> {
  const { module, name, options } = request.summarizer;
  const key = `${module}#${name}`;
  let loading = loaded.get(key);
  if (!loading) {
    loading = import(module).then((m: Record<string, unknown>) => {
      if (typeof m[name] !== "function") throw new TypeError(`no chunk summary ${name} in its module`);
      return m[name] as ChunkSummaryFunction;
    });
    loaded.set(key, loading);
  }
  const summarize = await loading;
  const Type = ELEMENT_TYPES[request.type];
  if (!Type) throw new TypeError(`a chunk of ${request.type} cannot be summarized`);
  return (bytes) => summarize(new Type(bytes.buffer, bytes.byteOffset, bytes.length / Type.BYTES_PER_ELEMENT), request, options);
}
