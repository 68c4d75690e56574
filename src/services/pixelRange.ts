/**
 * The values each pixel type can hold, for the formats that write raw values (tiff, lerc):
 * values beyond a type are clamped to it, as ArcGIS truncates them, never wrapped.
 */
import type { PixelType } from "../cube/types.js";

/** Lowest and highest finite value of each pixel type. */
export const PIXEL_RANGE: Readonly<Record<PixelType, readonly [number, number]>> = {
  U8: [0, 0xff],
  S8: [-0x80, 0x7f],
  U16: [0, 0xffff],
  S16: [-0x8000, 0x7fff],
  U32: [0, 0xffffffff],
  S32: [-0x80000000, 0x7fffffff],
  F32: [-3.4028234663852886e38, 3.4028234663852886e38],
  F64: [-Number.MAX_VALUE, Number.MAX_VALUE],
};

/** Whether a pixel type holds IEEE floats (and so NaN and fractions). */
export const isFloatPixelType = (pixelType: PixelType): boolean => pixelType === "F32" || pixelType === "F64";
