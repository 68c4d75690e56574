/**
 * Coordinate systems offered for the output, by EPSG code: the ones gridded climate and
 * ocean data are usually shown in. The server takes any 2D EPSG code proj4 runs without a
 * datum grid (docs/api.md), so another can be typed.
 */
export const CRS_CHOICES: readonly { code: string; name: string }[] = [
  { code: "4326", name: "WGS 84, longitude and latitude" },
  { code: "3857", name: "Web Mercator" },
  { code: "3395", name: "World Mercator" },
  { code: "6933", name: "EASE-Grid 2.0 Global (equal area)" },
  { code: "3413", name: "NSIDC Sea Ice Polar Stereographic North" },
  { code: "3976", name: "NSIDC Sea Ice Polar Stereographic South" },
  { code: "3995", name: "Arctic Polar Stereographic" },
  { code: "3031", name: "Antarctic Polar Stereographic" },
  { code: "4269", name: "NAD83, longitude and latitude" },
];
