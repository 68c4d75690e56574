/**
 * ArcGIS's predefined colormaps, the names a Colormap raster function's `ColormapName` takes:
 * Random, NDVI, NDVI2, NDVI3, Elevation, Gray, Hillshade, each 256 colours for the values (or
 * stretched indices) 0..255. As the ArcGIS Maps SDK for JavaScript defines them (@arcgis/core
 * 5.1.25, layers/raster/functions/colormaps.js): Elevation, Gray, Hillshade and NDVI2 run
 * through knots in HSV, each stretch between knots taking its share of the entries (NDVI2's
 * knots end at entry 200 and the rest keep the SDK's closing colour); NDVI and NDVI3 are
 * tables, kept here as "rrggbb" with "*n" for a colour repeated n times. Random is random
 * colours from a fixed seed, so an image is the same every time it is drawn.
 */
import { type AlgorithmicRamp, weightedRampTable } from "./colorRampJson.js";

/** Knots [entry, r, g, b] through which HSV runs; entry positions weigh the stretches between them. */
type Knots = readonly (readonly [number, number, number, number])[];

const ELEVATION: Knots = [
  [0, 0, 191, 191],
  [51, 0, 0, 255],
  [102, 255, 0, 255],
  [153, 255, 0, 127],
  [204, 191, 63, 127],
  [256, 20, 20, 20],
];
const NDVI2: Knots = [
  [0, 255, 255, 255],
  [70, 0, 255, 0],
  [80, 205, 173, 193],
  [100, 150, 150, 150],
  [110, 120, 51, 100],
  [130, 120, 100, 200],
  [140, 28, 3, 144],
  [160, 6, 0, 55],
  [180, 10, 25, 30],
  [201, 6, 7, 27],
];
/** The colour NDVI2's entries after its last knot keep (as the SDK has it). */
const NDVI2_TAIL = [6, 27, 7] as const;
const HILLSHADE: Knots = [
  [0, 38, 41, 54],
  [69, 79, 82, 90],
  [131, 156, 156, 156],
  [256, 253, 253, 241],
];
/** Hillshade's stretches do not follow its knots' positions in the SDK; these are its shares. */
const HILLSHADE_WEIGHTS = [0.268, 0.238, 0.495];

const TABLES: Readonly<Record<string, string>> = {
  ndvi: "2400ff*4 704b03 714c03 724d03 734d03 744e03 754f03 764f03 775003 795104 7a5204 7b5204 7c5304 7d5404 7e5404 7f5504 805604 815604 825704 835804 845904 855904 865a04 875b04 885b04 895c04 8a5d04 8b5e04 8c5e04 8e5f05 8f6005 906005 916105 926205 936305 946305 956405 966505 976505 986605 996705 9a6805 9b6805 9c6905 9d6a05 9e6a05 9f6b05 a06c05 a16c05 a26d05 a46e06 a56f06 a66f06 a77006 a87106 a97106 aa7206 ab7306 ac7406 ad7406 ae7506 f50000 f50500 f50a00 f60f00 f61400 f61900 f61e00 f72300 f72800 f72d00 f73200 f73700 f83c00 f84100 f84600 f84b00 f95100 f95600 f95b00 f96000 fa6500 fa6a00 fa6f00 fa7400 fa7900 fb7e00 fb8300 fb8800 fb8d00 fc9200 fc9700 fc9c00*2 fb9f00 faa200 f9a500 f8a800 f7ab00 f6ae00 f5b100 f5b300 f4b600 f3b900 f2bc00 f1bf00 f0c200 efc500 eec800 edcb00 ecce00 ebd100 ead400 e9d700 e8da00 e7dd00 e6e000 e6e200 e5e500 e4e800 e3eb00 e2ee00 e1f100 e0f400 dff700 a5f700 a3f400 a1f000 9eed00 9ce901 9ae601 98e301 95df01 93dc01 91d801 8fd501 8cd202 8ace02 88cb02 86c802 84c402 81c102 7fbd02 7dba03 7bb703 78b303 76b003 74ac03 72a903 6fa603 6da204 6b9f04 699b04 679804 649504 629104 608e04 5e8a05 5b8705 598405 578005 557d05 527905 507605 4e7306 4c6f06 496c06 476906 456506 436206 415e06 3e5b07 3c5807 3a5407 385107 354d07 334a07 314707 2f4308 2c4008 2a3c08 283908*72",
  ndvi3:
    "2400ff*4 f51400 f51800 f51d00 f51f00 f72100*2 f72500 f72900*3 f72d00*2 f72f00 f73100*2 f73600*2 f73800 f73a00*2 fa3e00*3 fa4300*3 fa4500 fa4700*2 fa4b00*2 fa4e00 fa4f00*3 fa5100 fa5300*2 fa5700*2 fa5a00 fa5c00 fc5d00*2 fc6100*4 fc6500*4 fc6900*2 fc6b00 fc6d00*2 fc710d ff7614 ff7717 ff7919 ff7e21 ff8426 ff8528 ff872b ff8d30 ff9036 ff963b ff983d ff9940 ff9f45 ffa34d ffa54f ffa852 ffae57 ffb05c ffb561 ffb763 ffba66 ffbf6b ffc573 ffc978 ffcb7b ffcd7d ffd182 ffd68a ffd88d ffda8f ffe096 ffe49c ffeaa3 ffeca5 ffeea8 fff3ad fff8b5 fffcba fdfcba fafcbb f4fab4 eef7b0 eaf6ad e7f5a9 dff0a3 d9ed9d d3eb96 cde992 c8e68e c3e388 bde084 b8de7e b4dc7b aed977 a9d672 a3d46c a0d269 9acf65 94cc60 8fc95d 8ac758 86c554 82c251 7ebf4d 75bd46 73ba44 70b840 6ab53c 64b337 5eb031 5cae2f 5aad2d 51a825 4ba621 47a31c 42a018 3e9e15 389c0e 339900*3 329600*4 319400*3 309100*4 308f00*4 2f8c00*4 2e8a00*4 2d8700*4 2c8500*3 2b8200*6 2a8000*3 2a7d00*4 297a00*4 287800*5 277500*4 267300*57",
};

/** The predefined colormaps' names in ArcGIS's spelling (lookup ignores case). */
export const ARCGIS_COLORMAP_NAMES: readonly string[] = ["Random", "NDVI", "NDVI2", "NDVI3", "Elevation", "Gray", "Hillshade"];

/**
 * The 256-entry RGB table (768 bytes) of an ArcGIS predefined colormap, or undefined for
 * another name.
 * @example
 * arcgisColormapTable("Elevation"); // cyan-teal (0, 191, 191) at 0 ... near-black (20, 20, 20) at 255
 */
export function arcgisColormapTable(name: string): Uint8Array | undefined {
  switch (name.trim().toLowerCase()) {
    case "elevation":
      return knotTable(ELEVATION);
    case "hillshade":
      return knotTable(HILLSHADE, HILLSHADE_WEIGHTS);
    case "ndvi2": {
      const lut = new Uint8Array(768);
      lut.set(knotTable(NDVI2));
      for (let i = NDVI2[NDVI2.length - 1][0]; i < 256; i++) lut.set(NDVI2_TAIL, i * 3);
      return lut;
    }
    case "gray":
      return knotTable([
        [0, 0, 0, 0],
        [256, 255, 255, 255],
      ]);
    case "ndvi":
    case "ndvi3":
      return runLengthTable(TABLES[name.trim().toLowerCase()]);
    case "random":
      return randomTable();
    default:
      return undefined;
  }
}

/** HSV through the knots: as many entries as the last knot's position, each stretch weighted by its length. */
function knotTable(knots: Knots, weights?: readonly number[]): Uint8Array {
  const parts = knots.slice(1).map((k, i): AlgorithmicRamp => ({
    type: "algorithmic",
    algorithm: "esriHSVAlgorithm",
    fromColor: [knots[i][1], knots[i][2], knots[i][3]],
    toColor: [k[1], k[2], k[3]],
  }));
  return weightedRampTable(parts, weights ?? knots.slice(1).map((k, i) => k[0] - knots[i][0]), knots[knots.length - 1][0]);
}

function runLengthTable(spec: string): Uint8Array {
  const lut = new Uint8Array(768);
  let i = 0;
  for (const token of spec.split(" ")) {
    const [hex, count] = token.split("*");
    const n = parseInt(hex, 16);
    for (let k = 0; k < Number(count ?? 1); k++, i++) lut.set([n >> 16, (n >> 8) & 255, n & 255], i * 3);
  }
  return lut;
}

/** 256 colours from a fixed-seed generator (mulberry32). */
function randomTable(): Uint8Array {
  let seed = 0x5eed;
  const next = (): number => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return Uint8Array.from({ length: 768 }, () => Math.floor(next() * 256));
}
