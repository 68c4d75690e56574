/**
 * The colour ramps ArcGIS names (the `colorRampName` a Colormap raster function receives, and
 * the ramps ArcGIS Pro, Server and the Maps SDK offer): each a list of parts "from-to" in
 * rrggbb, interpolated in CIE Lab as the Maps SDK builds them (its getColorRampJSON default)
 * and spread evenly over the ramp. Taken from @arcgis/core 5.1.25
 * (renderers/support/colorRampUtils.js, predefinedJsonColorRamps and colorRampDict), whose
 * names are what it sends to a server.
 */
import type { AlgorithmicRamp, ColorRampSpec } from "./colorRampJson.js";

const PARTS: Readonly<Record<string, string>> = {
  Aspect: "bebebe-ff2d08 ff2d08-ffb53d ffb53d-fffe34 fffe34-00fb32 00fb32-fffe34 00fdff-00b5ff 00b5ff-1a23fd 1a23fd-ff39fb ff39fb-ff2d08",
  "Black to White": "000000-ffffff",
  "Blue Bright": "ccccff-0000e0",
  "Blue Light to Dark": "d3e5e8-2e648c",
  "Blue-Green Bright": "cbf5ea-30cf92",
  "Blue-Green Light to Dark": "d8f2ed-154f4a",
  "Brown Light to Dark": "f0ecaa-664830",
  "Brown to Blue Green Diverging, Bright": "9c551f-ffffbf ffffbf-218291",
  "Brown to Blue Green Diverging, Dark": "6e462d-cccc66 cccc66-306466",
  "Coefficient Bias": "d6d6ff-003994",
  "Cold to Hot Diverging": "4575b5-ffffbf ffffbf-d62f27",
  "Condition Number": "006100-ffff00 ffff00-ff2200",
  "Cyan to Purple": "00f5f5-0000f5 0000f5-f500f5",
  "Cyan-Light to Blue-Dark": "b6edf0-1f83e0 1f83e0-090991",
  Distance: "ffc800-0000ff",
  "Elevation #1": "aff0e9-ffffb3 ffffb3-008040 008040-fcba03 fcba03-800000 780000-69300d 69300d-ababab ababab-fffcff",
  "Elevation #2": "76dbd3-ffffc7 ffffc7-ffff80 ffff80-d9c279 d9c279-876026 876026-9696b5 9696b5-b596b5 b596b5-fffcff",
  Errors: "ffebd6-c40a0a",
  "Gray Light to Dark": "dbdbdb-454545",
  "Green Bright": "ccffcc-0ecc0e",
  "Green Light to Dark": "dcf5e9-226633",
  "Green to Blue": "20cc10-00f2f2 00f2f2-0221e3",
  "Orange Bright": "ffebcc-f07605",
  "Orange Light to Dark": "fae9d4-ab4124",
  "Partial Spectrum": "f2f1a2-ffff00 ffff00-ff0000 fc0345-b007ed b007ed-021dad",
  "Partial Spectrum 1 Diverging": "872626-f0950c f0950c-ffffbf ffffbf-4a50b5 4a50b5-27207a",
  "Partial Spectrum 2 Diverging": "734d2a-c98934 c98934-ffffbf ffffbf-5b3fb0 5b3fb0-510d61",
  "Pink to YellowGreen Diverging, Bright": "9e1e71-ffffbf ffffbf-636e2d",
  "Pink to YellowGreen Diverging, Dark": "612f49-cccc66 cccc66-163b0f",
  Precipitation: "c2523c-eda113 eda113-ffff00 ffff00-00db00 00db00-20998f 20998f-0b2c7a",
  Prediction: "2892c7-fafa64 fafa64-e81014",
  "Purple Bright": "ffccff-c700c7",
  "Purple to Green Diverging, Bright": "4d2096-ffffbf ffffbf-147a0b",
  "Purple to Green Diverging, Dark": "430e59-cccc66 cccc66-184f0f",
  "Purple-Blue Bright": "dfb8e6-700cf2",
  "Purple-Blue Light to Dark": "e5d5f2-5d2c70",
  "Purple-Red Bright": "ffcce1-c70063",
  "Purple-Red Light to Dark": "fad7f6-8f1139",
  "Red Bright": "ffcccc-db0000",
  "Red Light to Dark": "ffe0e0-8f0a0a",
  "Red to Blue Diverging, Bright": "c44539-ffffbf ffffbf-305fcf",
  "Red to Blue Diverging, Dark": "6b0d0d-cccc66 cccc66-0d3561",
  "Red to Green": "f50000-f5f500 f5f500-00f500",
  "Red to Green Diverging, Bright": "ba1414-ffffbf ffffbf-369121",
  "Red to Green Diverging, Dark": "61150d-cccc66 cccc66-104510",
  Slope: "38a800-ffff00 ffff00-ff0000",
  "Spectrum-Full Bright": "ff0000-ffff00 ffff00-00ffff 00ffff-0000ff",
  "Spectrum-Full Dark": "990000-999900 999900-009999 009999-000099",
  "Spectrum-Full Light": "ff9999-ffff99 ffff99-99ffff 99ffff-9999ff",
  Surface: "709959-f2eea2 f2eea2-f2ce85 f2ce85-c28c7c c28c7c-fff2ff",
  Temperature: "fffcff-ff00ff ff00ff-0000ff 0000ff-00ffff 00ffff-00ff00 00ff00-ffff00 ffff00-ff8000 ff8000-800000",
  "White to Black": "ffffff-000000",
  "Yellow to Dark Red": "ffff80-f2a72e f2a72e-6b0000",
  "Yellow to Green to Dark Blue": "ffff80-38e009 38e009-1a93ab 1a93ab-0c1078",
  "Yellow to Red": "f5f500-ff0000",
  "Yellow-Green Bright": "ecfccc-9dcc10",
  "Yellow-Green Light to Dark": "d7f0af-606b2d",
};

/** ArcGIS's ramp names, in its spelling (lookup ignores case). */
export const ESRI_RAMP_NAMES: readonly string[] = Object.keys(PARTS);

const BY_LOWER: ReadonlyMap<string, string> = new Map(ESRI_RAMP_NAMES.map((n) => [n.toLowerCase(), n]));

/**
 * The ramp ArcGIS calls `name` (case-insensitive), as colour-ramp JSON; undefined for other names.
 * @example
 * esriNamedRamp("Slope"); // { type: "multipart", colorRamps: [38a800 -> ffff00, ffff00 -> ff0000] in Lab }
 */
export function esriNamedRamp(name: string): ColorRampSpec | undefined {
  const canonical = BY_LOWER.get(name.trim().toLowerCase());
  if (canonical === undefined) return undefined;
  const parts = PARTS[canonical].split(" ").map((p): AlgorithmicRamp => {
    const [from, to] = p.split("-").map(hexRgb);
    return { type: "algorithmic", algorithm: "esriCIELabAlgorithm", fromColor: from, toColor: to };
  });
  return parts.length === 1 ? parts[0] : { type: "multipart", colorRamps: parts };
}

function hexRgb(hex: string): [number, number, number] {
  const n = parseInt(hex, 16);
  return [n >> 16, (n >> 8) & 255, n & 255];
}
