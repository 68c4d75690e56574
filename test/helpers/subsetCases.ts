/**
 * The Subset golden cases (scripts/goldens/make_subset_goldens.py, values from xarray) and a
 * parse environment that resolves `{"uri": "<file>"}` to a real fixture: everything else is
 * what the task's parser really does.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { openCube } from "../../src/io/open.js";
import type { InputLocation, ParseEnv } from "../../src/tasks/types.js";

export const REAL = fileURLToPath(new URL("../fixtures/real/", import.meta.url));

export interface GoldenCase {
  name: string;
  file: string;
  params: Record<string, string>;
  expected: {
    variables: string[];
    dims: Record<string, number[]>;
    grid?: { width: number; height: number; ymax_center: number; xmin_center: number };
    samples: { variable: string; index: Record<string, number>; row: number; col: number; value: number | null }[];
    statistics: Record<string, { min: number; max: number; mean: number; count: number }>;
  };
}

export const CASES = JSON.parse(
  readFileSync(fileURLToPath(new URL("../golden/subset/cases.json", import.meta.url)), "utf8"),
) as GoldenCase[];

export const fixtureEnv: ParseEnv = {
  resolveInput: async (descriptor) => ({ location: { path: REAL + (descriptor as { uri: string }).uri }, warnings: [] }),
  resolveOutput: async () => ({ kind: "create", serviceName: "x", itemProperties: {} }),
  openCube: (location: InputLocation) => openCube(location.path!),
};

/** -0 and 0 are the same height. */
export const plain = (values: readonly number[]) => values.map((v) => v + 0);
