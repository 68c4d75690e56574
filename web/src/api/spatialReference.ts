/** The EPSG code of an extent's spatial reference (latestWkid when the server gives both). */
import type { Extent } from "./types.js";

export const wkidOf = (e: Extent): number | undefined => e.spatialReference?.latestWkid ?? e.spatialReference?.wkid;
