/**
 * The output statistics' kernel (src/kernels/statistics.ts): a block's sums and histogram
 * bins, over blocks copied into its memory (assembly/lib/statistics.ts).
 */

export { heapBase } from "./lib/heap";
export { binValuesF32, binValuesF64, blockSumsF32, blockSumsF64 } from "./lib/statistics";
