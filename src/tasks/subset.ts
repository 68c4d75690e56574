/**
 * SubsetMultidimensionalRaster (SPEC §6): keep some variables, some slices of their
 * dimensions and, with context.extent, a window of the grid.
 */
import type { RasterStore } from "../store/rasterStore.js";
import { wholeCubePlan } from "./plan.js";
import { copySubset, type SubsetPlan } from "../analysis/subset.js";
import { SUBSET_RUN_BYTES, subsetLayout } from "../analysis/subsetLayout.js";
import { subsetDimension } from "../cube/dimension.js";
import { InvalidInputError } from "../cube/errors.js";
import { windowGrid } from "../cube/grid.js";
import { type Cube, type Dimension, variableNamed } from "../cube/types.js";
import { openLocation } from "../io/open.js";
import { TILE } from "../io/zarrWrite.js";
import { type ContextPlan, applyContext, resolveContext } from "./context.js";
import { inputNotes } from "./inputNotes.js";
import {
  type ParameterSpec,
  type TaskInfo,
  collectParameters,
  parseJson,
  parseKeyword,
  parseNumber,
  parseStringList,
  required,
} from "./gp.js";
import { DIMENSION_DEFINITIONS, type DefinitionInput, ITERATION_UNITS, selectSlices } from "./selection.js";
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
import type { InputLocation, OutputTarget, Parsed, TaskDefinition } from "./types.js";

const DIMENSION_DEFINITION: ParameterSpec = {
  name: "dimensionDefinition",
  aliases: ["dimensionDef"],
  dataType: "GPString",
  displayName: "Dimension Definition",
  description: "How slices are chosen: ALL, BY_VALUE (dimensionValues), BY_RANGES (dimensionRanges) or BY_ITERATION.",
  defaultValue: "ALL",
  choiceList: DIMENSION_DEFINITIONS,
};
const ITERATION_UNIT: ParameterSpec = {
  name: "iterationUnit",
  dataType: "GPString",
  displayName: "Iteration Unit",
  description: "BY_ITERATION: the unit of iterationStep; required when iterating StdTime. Month and year steps are calendar steps.",
  choiceList: ITERATION_UNITS,
};

export const SUBSET_INFO: TaskInfo = {
  name: "SubsetMultidimensionalRaster",
  displayName: "Subset Multidimensional Raster",
  description:
    "Creates a multidimensional raster holding the chosen variables and slices of an input, published as a hosted image service.",
  category: "Multidimensional Analysis",
  parameters: [
    inputParameter("Input Multidimensional Raster", "The raster to subset"),
    OUTPUT_NAME_PARAMETER,
    {
      name: "variables",
      dataType: "GPMultiValue:GPString",
      displayName: "Variables",
      description: "Variables to keep, as a JSON list or comma-separated; all when absent.",
    },
    DIMENSION_DEFINITION,
    {
      name: "dimensionRanges",
      dataType: "GPString",
      displayName: "Dimension Ranges",
      description: 'BY_RANGES: [{"dimension":"StdTime","minValue":"2000-01-01","maxValue":"2000-12-31"}, ...]; bounds inclusive.',
    },
    {
      name: "dimensionValues",
      dataType: "GPString",
      displayName: "Dimension Values",
      description: 'BY_VALUE: [{"dimension":"StdZ","value":-50}, ...]; exact match; StdTime also accepts month names (January, Jan).',
    },
    { name: "dimension", dataType: "GPString", displayName: "Dimension", description: "BY_ITERATION: the dimension to iterate." },
    {
      name: "startOfFirstIteration",
      dataType: "GPString",
      displayName: "Start of First Iteration",
      description: "BY_ITERATION: start of the first window (inclusive).",
    },
    {
      name: "endOfFirstIteration",
      dataType: "GPString",
      displayName: "End of First Iteration",
      description: "BY_ITERATION: end of the first window (inclusive).",
    },
    {
      name: "iterationStep",
      dataType: "GPDouble",
      displayName: "Iteration Step",
      description: "BY_ITERATION: the window repeats every step x unit until past the last slice.",
    },
    ITERATION_UNIT,
    CONTEXT_PARAMETER,
  ],
};

/** Options of a Subset job (JSON, stored with the job and handed to the worker). */
export interface SubsetOptions extends ContextPlan {
  readonly input: InputLocation;
  readonly variables: readonly { readonly name: string; readonly indices: readonly (readonly number[])[] }[];
  /** Set per thread (perThread): see SubsetPlan. */
  readonly runBudgetBytes?: number;
}

async function parse(params: Record<string, string>, env: Parameters<TaskDefinition["parse"]>[1]): Promise<Parsed<SubsetOptions>> {
  const { values, unknown } = collectParameters(SUBSET_INFO, params);
  const warnings = unknown.map((k) => `${k} is not a parameter of ${SUBSET_INFO.name}; it was ignored`);
  const inputDescriptor = parseJson(required(values, "inputMultidimensionalRaster"), "inputMultidimensionalRaster");
  const outputRequest = outputDescriptor(values);
  const definition = parseKeyword(values.get("dimensionDefinition"), DIMENSION_DEFINITION);
  const wanted = parseStringList(values.get("variables"), "variables");

  const input = await env.resolveInput(inputDescriptor, "inputMultidimensionalRaster");
  warnings.push(...input.warnings);
  const output: OutputTarget = await env.resolveOutput(outputRequest, "outputName");
  const cube = await env.openCube(input.location, "inputMultidimensionalRaster");
  warnings.push(...inputNotes(cube, "inputMultidimensionalRaster"));
  try {
    const chosen = wanted
      ? wanted.map((name) => {
          const v = cube.variables.find((x) => x.name.toLowerCase() === name.toLowerCase());
          if (!v) {
            throw new InvalidInputError(
              `variable "${name}" is not in the input (it has: ${cube.variables.map((x) => x.name).join(", ")})`,
              {
                parameter: "variables",
              },
            );
          }
          return v;
        })
      : cube.variables;
    if (new Set(chosen.map((v) => v.name)).size !== chosen.length) {
      throw new InvalidInputError("variables names the same variable twice", { parameter: "variables" });
    }
    const dims = uniqueDimensions(chosen.flatMap((v) => v.dimensions));
    const selection = selectSlices(dims, definitionInput(definition, values));
    const context = await resolveContext(values.get("context"), cube.grid, env);
    warnings.push(...context.warnings);
    const variables = chosen.map((v) => ({
      name: v.name,
      indices: v.dimensions.map((d) => selection.get(d.name) ?? d.values.map((_, i) => i)),
    }));
    return { options: { input: input.location, variables, ...context.plan }, output, warnings };
  } finally {
    await cube.close();
  }
}

function definitionInput(definition: string, values: Map<string, string>): DefinitionInput {
  switch (definition) {
    case "BY_VALUE":
      return { kind: "BY_VALUE", values: parseJson(required(values, "dimensionValues"), "dimensionValues") };
    case "BY_RANGES":
      return { kind: "BY_RANGES", ranges: parseJson(required(values, "dimensionRanges"), "dimensionRanges") };
    case "BY_ITERATION": {
      const unitText = values.get("iterationUnit");
      return {
        kind: "BY_ITERATION",
        iteration: {
          dimension: required(values, "dimension"),
          start: jsonOrText(required(values, "startOfFirstIteration")),
          end: jsonOrText(required(values, "endOfFirstIteration")),
          step: parseNumber(required(values, "iterationStep"), "iterationStep")!,
          unit: unitText ? (parseKeyword(unitText, ITERATION_UNIT) as (typeof ITERATION_UNITS)[number]) : undefined,
        },
      };
    }
    default:
      return { kind: "ALL" };
  }
}

/** Iteration bounds come as plain text ("2000-01-01", "-50") or JSON numbers. */
function jsonOrText(text: string): unknown {
  const n = Number(text);
  return text.trim() !== "" && Number.isFinite(n) ? n : text.trim().replace(/^"(.*)"$/, "$1");
}

function uniqueDimensions(dims: readonly Dimension[]): Dimension[] {
  const seen = new Map<string, Dimension>();
  for (const d of dims) if (!seen.has(d.name)) seen.set(d.name, d);
  return [...seen.values()];
}

/** The planned subset of `cube` as an output to write (see writeDataset). */
export function subsetOutput(cube: Cube, plan: SubsetPlan): Pick<OpenedInput, "spec" | "compute" | "walk"> {
  const layouts = plan.variables.map((p) => subsetLayout(variableNamed(cube, p.name), plan.window, plan.tile, plan.runBudgetBytes));
  const byRuns = plan.variables.flatMap((p, k) => {
    const { timeChunk, height, width } = layouts[k];
    return timeChunk === undefined
      ? []
      : [
          `${p.name} is stored ${timeChunk} time steps per chunk: copied in tiles of ${height} × ${width} (whole chunks), each through a chunk's kept steps at once, so each chunk is read once for each tile it meets (once when the window starts on a chunk's edges)`,
        ];
  });
  return {
    spec: () => ({
      grid: windowGrid(cube.grid, plan.window),
      attributes: cube.attributes,
      variables: plan.variables.map((p, k) => {
        const v = variableNamed(cube, p.name);
        return {
          ...v,
          dimensions: v.dimensions.map((d, i) => subsetDimension(d, p.indices[i])),
          outputChunks: [...v.dimensions.map(() => 1), layouts[k].height, layouts[k].width],
        };
      }),
    }),
    compute: (sink, walk) => copySubset(cube, plan, sink, walk),
    walk: byRuns.length > 0 ? { passes: 1, note: `Reading in storage order: ${byRuns.join("; ")}.` } : undefined,
  };
}

const subsetDataset: DatasetTask<SubsetOptions> = {
  async open(options) {
    const { cube } = applyContext(await openLocation(options.input), options);
    return { cube, ...subsetOutput(cube, { ...options, tile: TILE }), close: () => cube.close() };
  },
  // Threads share the job's memory: each one's reads through a stored chunk's steps are smaller.
  perThread: (options, threads) => ({ ...options, runBudgetBytes: SUBSET_RUN_BYTES / threads }),
  describe(options) {
    const slices = options.variables.reduce((n, v) => n + v.indices.reduce((m, l) => m * l.length, 1), 0);
    return `Writing ${options.variables.length} variable(s), ${slices} slice(s) in all`;
  },
};

/**
 * Write the planned subset of `cube` as a new Zarr store at `path`, with its statistics.
 * @example
 * await writeSubset(cube, { variables: [{ name: "sst", indices: [[0, 1, 2]] }], window, tile: TILE }, "/tmp/out.zarr");
 */
export function writeSubset(cube: Cube, plan: SubsetPlan, path: string, walk: WalkOptions = {}): Promise<VariableStatistics> {
  return writeDataset(subsetOutput(cube, plan), path, walk);
}

/**
 * Copy a whole cube into a new committed dataset of the raster store (Strata's Zarr, with
 * statistics): how samples and uploads become services. Its dataset id; nothing is left on failure.
 * @example
 * const datasetId = await copyIntoStore(store, await openCube("sst.nc"));
 */
export async function copyIntoStore(store: RasterStore, cube: Cube): Promise<string> {
  const pending = await store.begin();
  try {
    await writeSubset(cube, wholeCubePlan(cube), pending.path);
    await pending.commit();
    return pending.id;
  } catch (e) {
    await pending.abort();
    throw e;
  }
}

export const subsetTask: TaskDefinition<SubsetOptions> = { info: SUBSET_INFO, parse, ...datasetRunners(subsetDataset) };
