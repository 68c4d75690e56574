/**
 * GenerateMultidimensionalAnomaly (SPEC §7, docs/tasks.md): each slice's departure from the
 * mean, median or standard score of its group of slices (or of a reference raster), for
 * every variable with a time dimension, at each value of its other dimensions.
 */
import {
  ANOMALY_METHODS,
  type AnomalyMethod,
  type AnomalyPlan,
  CALCULATION_INTERVALS,
  type CalculationInterval,
  anomalyChunks,
  anomalyPixelType,
  anomalyTileShape,
  referenceMismatch,
} from "../analysis/anomaly.js";
import { TIME_TILE_BUDGET_BYTES } from "../analysis/tiles.js";
import { InvalidInputError } from "../cube/errors.js";
import { sameGrid, windowGrid } from "../cube/grid.js";
import { type Cube, STD_TIME, type Variable } from "../cube/types.js";
import { openLocation } from "../io/open.js";
import type { VariableSpec } from "../io/zarrWrite.js";
import { chooseAnomalyWalk, anomalyWalk, streamedChunks } from "./anomalyStreaming.js";
import { type ContextPlan, applyContext, resolveContext } from "./context.js";
import { inputNotes } from "./inputNotes.js";
import {
  type ParameterSpec,
  type TaskInfo,
  collectParameters,
  parseJson,
  parseKeyword,
  parseStringList,
  required,
  parseIgnoreNoData,
} from "./gp.js";
import {
  CONTEXT_PARAMETER,
  type DatasetTask,
  OUTPUT_NAME_PARAMETER,
  type OpenedInput,
  type VariableStatistics,
  type WalkOptions,
  datasetRunners,
  inputParameter,
  outputDescriptor,
  writeDataset,
} from "./common.js";
import type { InputLocation, OutputTarget, ParseEnv, Parsed, TaskDefinition } from "./types.js";

const METHOD: ParameterSpec = {
  name: "method",
  dataType: "GPString",
  displayName: "Anomaly Calculation Method",
  description:
    "DIFFERENCE_FROM_MEAN (x − µ), PERCENT_DIFFERENCE_FROM_MEAN (|x − µ| / ((x + µ)/2)), PERCENT_OF_MEAN (x / µ), Z_SCORE ((x − µ) / s), " +
    "or the _MEDIAN forms with the median m in place of µ. Percentages are plain ratios.",
  defaultValue: "DIFFERENCE_FROM_MEAN",
  choiceList: ANOMALY_METHODS,
};
const INTERVAL: ParameterSpec = {
  name: "calculationInterval",
  dataType: "GPString",
  displayName: "Calculation Interval",
  description:
    "Which slices share µ, m and s: ALL, YEARLY (same year), RECURRING_MONTHLY (same month of any year), RECURRING_WEEKLY (same week of year, " +
    "days 358-366 in week 52), RECURRING_DAILY (same calendar day; Feb 29 alone), HOURLY (same clock hour of the same day), or EXTERNAL_RASTER (referenceMeanRaster).",
  defaultValue: "ALL",
  choiceList: CALCULATION_INTERVALS,
};

export const ANOMALY_INFO: TaskInfo = {
  name: "GenerateMultidimensionalAnomaly",
  displayName: "Generate Multidimensional Anomaly",
  description:
    "Computes the anomaly of each slice of a multidimensional raster from the mean, median or standard deviation of its group of slices " +
    "(or of a reference raster), published as a hosted image service.",
  category: "Multidimensional Analysis",
  parameters: [
    inputParameter(),
    OUTPUT_NAME_PARAMETER,
    {
      name: "variables",
      dataType: "GPMultiValue:GPString",
      displayName: "Variables",
      description: "Variables to compute, as a JSON list or comma-separated; every variable with a StdTime dimension when absent.",
    },
    METHOD,
    INTERVAL,
    {
      name: "ignoreNodata",
      dataType: "GPBoolean",
      displayName: "Ignore NoData",
      description:
        "true (or DATA, the default): nodata slices are left out of µ, m and s; false (or NODATA): a pixel with any nodata slice in a group is nodata in the whole group.",
      defaultValue: true,
    },
    {
      name: "referenceMeanRaster",
      dataType: "GPRasterDataLayer",
      displayName: "Reference Mean Raster",
      description:
        "EXTERNAL_RASTER only: µ (or m) as a raster on the input's grid with the same variables: one slice for every slice, or the input's StdTime slices.",
    },
    CONTEXT_PARAMETER,
  ],
};

/** Options of an Anomaly job (JSON, stored with the job and handed to the worker). */
export interface AnomalyOptions extends AnomalyPlan, ContextPlan {
  readonly input: InputLocation;
  /** The reference raster, with EXTERNAL_RASTER only; it goes through the context's warp too. */
  readonly reference?: InputLocation;
}

async function parse(params: Record<string, string>, env: ParseEnv): Promise<Parsed<AnomalyOptions>> {
  const { values, unknown } = collectParameters(ANOMALY_INFO, params);
  const warnings = unknown.map((k) => `${k} is not a parameter of ${ANOMALY_INFO.name}; it was ignored`);
  const inputDescriptor = parseJson(required(values, "inputMultidimensionalRaster"), "inputMultidimensionalRaster");
  const outputRequest = outputDescriptor(values);
  const method = parseKeyword(values.get("method"), METHOD) as AnomalyMethod;
  const calculationInterval = parseKeyword(values.get("calculationInterval"), INTERVAL) as CalculationInterval;
  const ignoreNoData = parseIgnoreNoData(values.get("ignoreNodata"));
  const wanted = parseStringList(values.get("variables"), "variables");

  const referenceText = values.get("referenceMeanRaster");
  const referenceDescriptor = referenceText === undefined ? null : parseJson(referenceText, "referenceMeanRaster");
  const external = calculationInterval === "EXTERNAL_RASTER";
  if (external && referenceDescriptor === null) {
    throw new InvalidInputError("referenceMeanRaster is required with calculationInterval=EXTERNAL_RASTER", {
      parameter: "referenceMeanRaster",
    });
  }
  if (!external && referenceDescriptor !== null) {
    throw new InvalidInputError(
      `referenceMeanRaster is used only with calculationInterval=EXTERNAL_RASTER (calculationInterval is ${calculationInterval})`,
      { parameter: "referenceMeanRaster" },
    );
  }
  if (external && method === "Z_SCORE") {
    throw new InvalidInputError("method Z_SCORE needs the standard deviation of each group; it cannot be used with EXTERNAL_RASTER", {
      parameter: "method",
    });
  }

  const input = await env.resolveInput(inputDescriptor, "inputMultidimensionalRaster");
  warnings.push(...input.warnings);
  const output: OutputTarget = await env.resolveOutput(outputRequest, "outputName");
  const cube = await env.openCube(input.location, "inputMultidimensionalRaster");
  warnings.push(...inputNotes(cube, "inputMultidimensionalRaster"));
  try {
    const chosen = chooseVariables(cube, wanted);
    const context = await resolveContext(values.get("context"), cube.grid, env);
    warnings.push(...context.warnings);
    let reference: InputLocation | undefined;
    if (external) {
      const resolved = await env.resolveInput(referenceDescriptor, "referenceMeanRaster");
      warnings.push(...resolved.warnings);
      await checkReference(env, resolved.location, cube, chosen);
      reference = resolved.location;
    }
    const options: AnomalyOptions = {
      input: input.location,
      variables: chosen.map((v) => v.name),
      method,
      calculationInterval,
      ignoreNoData,
      ...context.plan,
      ...(reference ? { reference } : {}),
    };
    return { options, output, warnings };
  } finally {
    await cube.close();
  }
}

const hasTime = (v: Variable) => v.dimensions.some((d) => d.name === STD_TIME);

function chooseVariables(cube: Cube, wanted: string[] | undefined): Variable[] {
  if (!wanted) {
    const timed = cube.variables.filter(hasTime);
    if (timed.length === 0) {
      throw new InvalidInputError(
        `the input has no variable with a ${STD_TIME} dimension (its variables: ${describeVariables(cube)}); anomalies are computed along time`,
        { parameter: "inputMultidimensionalRaster" },
      );
    }
    return timed;
  }
  const chosen = wanted.map((name) => {
    const v = cube.variables.find((x) => x.name.toLowerCase() === name.toLowerCase());
    if (!v) {
      throw new InvalidInputError(`variable "${name}" is not in the input (it has: ${cube.variables.map((x) => x.name).join(", ")})`, {
        parameter: "variables",
      });
    }
    return v;
  });
  if (new Set(chosen.map((v) => v.name)).size !== chosen.length) {
    throw new InvalidInputError("variables names the same variable twice", { parameter: "variables" });
  }
  const untimed = chosen.filter((v) => !hasTime(v));
  if (untimed.length > 0) {
    const list = untimed.map((v) => `${v.name} (${v.dimensions.map((d) => d.name).join(", ") || "no dimensions"})`).join(", ");
    throw new InvalidInputError(
      `anomalies are computed along ${STD_TIME}, and ${untimed.length === 1 ? "this variable has" : "these variables have"} no ${STD_TIME} dimension: ${list}`,
      { parameter: "variables" },
    );
  }
  return chosen;
}

function describeVariables(cube: Cube): string {
  return cube.variables.map((v) => `${v.name} (${v.dimensions.map((d) => d.name).join(", ") || "no dimensions"})`).join(", ") || "none";
}

/** The reference must be on the input's grid and hold each chosen variable with matching dimensions. */
async function checkReference(env: ParseEnv, location: InputLocation, cube: Cube, chosen: readonly Variable[]): Promise<void> {
  const P = "referenceMeanRaster";
  const ref = await env.openCube(location, P);
  try {
    if (!sameGrid(ref.grid, cube.grid)) {
      throw new InvalidInputError(
        `referenceMeanRaster is on another grid (${ref.grid.width}×${ref.grid.height} cells) than the input (${cube.grid.width}×${cube.grid.height}); it must have the same grid`,
        { parameter: P },
      );
    }
    for (const v of chosen) {
      const r = ref.variables.find((x) => x.name === v.name);
      if (!r) {
        throw new InvalidInputError(
          `referenceMeanRaster has no variable ${v.name} (it has: ${ref.variables.map((x) => x.name).join(", ") || "none"})`,
          { parameter: P },
        );
      }
      const why = referenceMismatch(v, r);
      if (why) throw new InvalidInputError(`referenceMeanRaster variable ${v.name} does not match the input: ${why}`, { parameter: P });
    }
  } finally {
    await ref.close();
  }
}

/** Attributes that described the input's values and would lie about anomalies. */
const VALUE_ATTRIBUTES = new Set(["valid_range", "valid_min", "valid_max", "actual_range", "standard_name"]);

/**
 * Write the anomalies of `cube` as a new Zarr store at `path`, with their statistics
 * (root attribute `strata:statistics`). EXTERNAL_RASTER needs `options.reference`.
 * @example
 * await writeAnomaly(cube, { variables: ["SST"], method: "DIFFERENCE_FROM_MEAN", calculationInterval: "RECURRING_MONTHLY",
 *   ignoreNoData: true, window: { x: 0, y: 0, width: cube.grid.width, height: cube.grid.height } }, "/tmp/anomaly.zarr");
 */
export function writeAnomaly(
  cube: Cube,
  plan: AnomalyPlan & Pick<ContextPlan, "compression">,
  path: string,
  options: WalkOptions & { reference?: Cube } = {},
): Promise<VariableStatistics> {
  return writeDataset(anomalyOutput(cube, plan, options.reference), path, options, plan.compression);
}

/** The anomalies of `cube` as an output to write (see writeDataset), walked as its storage suits. */
function anomalyOutput(
  cube: Cube,
  plan: AnomalyPlan & Pick<ContextPlan, "compression">,
  reference: Cube | undefined,
): Pick<OpenedInput, "spec" | "compute" | "walk" | "merge"> {
  const ratio = plan.method !== "DIFFERENCE_FROM_MEAN" && plan.method !== "DIFFERENCE_FROM_MEDIAN";
  const chosen = chooseAnomalyWalk(cube, plan);
  return {
    spec: () => ({
      grid: windowGrid(cube.grid, plan.window),
      attributes: cube.attributes,
      variables: plan.variables.map((name): VariableSpec => {
        const v = cube.variables.find((x) => x.name === name);
        if (!v) throw new InvalidInputError(`no variable ${name} in the input`, { parameter: "variables" });
        const attributes = Object.fromEntries(Object.entries(v.attributes).filter(([k]) => !VALUE_ATTRIBUTES.has(k)));
        return {
          name: v.name,
          description: v.description,
          // Differences keep the input's unit; ratios and standard scores have none.
          unit: ratio ? "" : v.unit,
          pixelType: anomalyPixelType(v.pixelType),
          nodata: NaN,
          dimensions: v.dimensions,
          attributes: {
            ...attributes,
            "strata:anomaly": { method: plan.method, calculationInterval: plan.calculationInterval, ignoreNoData: plan.ignoreNoData },
          },
          outputChunks:
            chosen.kind === "stream"
              ? streamedChunks(v, chosen.plan, plan.compression === "NONE")
              : anomalyChunks(
                  v,
                  anomalyTileShape(v, chosen.kind === "transpose" ? chosen.plan : plan),
                  plan.window,
                  anomalyPixelType(v.pixelType) === "F64" ? 8 : 4,
                ),
        };
      }),
    }),
    ...anomalyWalk(cube, chosen, plan, reference),
  };
}

export const anomalyDataset: DatasetTask<AnomalyOptions> = {
  async open(options) {
    const { cube } = applyContext(await openLocation(options.input, "inputMultidimensionalRaster"), options);
    let reference: Cube | undefined;
    try {
      if (options.reference) reference = applyContext(await openLocation(options.reference, "referenceMeanRaster"), options).cube;
    } catch (e) {
      await cube.close();
      throw e;
    }
    return {
      cube,
      ...anomalyOutput(cube, options, reference),
      close: async () => {
        await cube.close();
        await reference?.close();
      },
    };
  },
  perThread: (options, threads) => ({ ...options, tileBudgetBytes: TIME_TILE_BUDGET_BYTES / threads }),
  describe: (options) =>
    `Computing ${options.method} (${options.calculationInterval}) of ${options.variables.length} variable(s): ${options.variables.join(", ")}`,
};

export const anomalyTask: TaskDefinition<AnomalyOptions> = { info: ANOMALY_INFO, parse, ...datasetRunners(anomalyDataset) };
