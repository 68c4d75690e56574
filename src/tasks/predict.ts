/**
 * PredictUsingTrendRaster (SPEC §9, docs/tasks.md): evaluate the models of a trend raster
 * made by GenerateTrendRaster at chosen values of its dimension, one float32 slice per value.
 */
import { type PredictPlan, computePredict, predictLayout, predictableTrend } from "../analysis/trendPredict.js";
import type { TrendMetadata } from "../analysis/trendModel.js";
import { sliceChunk } from "../analysis/tiles.js";
import { InvalidInputError } from "../cube/errors.js";
import { windowGrid } from "../cube/grid.js";
import { type TimeStepUnit, anchoredStep, formatIso, parseIsoTime } from "../cube/time.js";
import { type Cube, type Variable, STD_TIME } from "../cube/types.js";
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

/** Most slices one prediction makes. */
export const MAX_PREDICTIONS = 100_000;
export const INTERVAL_UNITS: readonly TimeStepUnit[] = ["HOURS", "DAYS", "WEEKS", "MONTHS", "YEARS"];

const DIMENSION_DEFINITION: ParameterSpec = {
  name: "dimensionDefinition",
  aliases: ["dimensionDef"],
  dataType: "GPString",
  displayName: "Dimension Definition",
  description: "BY_VALUE: predict at dimensionValues; BY_INTERVAL: from start to end every intervalValue × intervalUnit.",
  defaultValue: "BY_VALUE",
  choiceList: ["BY_VALUE", "BY_INTERVAL"],
};
const INTERVAL_UNIT: ParameterSpec = {
  name: "intervalUnit",
  dataType: "GPString",
  displayName: "Interval Unit",
  description:
    "BY_INTERVAL along StdTime (required there): the unit of intervalValue; months and years are calendar steps anchored at start.",
  choiceList: INTERVAL_UNITS,
};

export const PREDICT_INFO: TaskInfo = {
  name: "PredictUsingTrendRaster",
  displayName: "Predict Using Trend Raster",
  description:
    "Evaluates the trend models of a trend raster made by GenerateTrendRaster at chosen dimension values and publishes the predictions as a multidimensional raster.",
  category: "Multidimensional Analysis",
  parameters: [
    inputParameter("Input Trend Raster", "A trend raster made by GenerateTrendRaster (not a Mann-Kendall one)"),
    OUTPUT_NAME_PARAMETER,
    {
      name: "variables",
      dataType: "GPMultiValue:GPString",
      displayName: "Variables",
      description: "Variables to predict, as a JSON list or comma-separated; all when absent.",
    },
    DIMENSION_DEFINITION,
    {
      name: "dimensionValues",
      dataType: "GPString",
      displayName: "Dimension Values",
      description:
        'BY_VALUE: a JSON list, or values separated by semicolons (as ArcGIS writes them) or commas: times (ISO 8601 or epoch ms) for StdTime, numbers otherwise, e.g. 2050-01-01T00:00:00;2060-01-01T00:00:00 or ["2050-01-01","2060-01-01"].',
    },
    { name: "start", dataType: "GPString", displayName: "Start", description: "BY_INTERVAL: the first value (inclusive)." },
    { name: "end", dataType: "GPString", displayName: "End", description: "BY_INTERVAL: the last value (inclusive)." },
    {
      name: "intervalValue",
      dataType: "GPDouble",
      displayName: "Interval Value",
      description: "BY_INTERVAL: the step between values, in intervalUnit (default 1).",
      defaultValue: 1,
    },
    INTERVAL_UNIT,
    CONTEXT_PARAMETER,
  ],
};

/** Options of a prediction job (JSON, stored with the job and handed to the worker). */
export interface PredictOptions extends ContextPlan {
  readonly input: InputLocation;
  readonly variables: readonly string[];
  /** Values of the trend's dimension (epoch ms for StdTime), increasing. */
  readonly values: readonly number[];
  /** Spatial tile edge override (tests, benchmarks); default the writer's TILE. */
  readonly tile?: number;
}

const INPUT = "inputMultidimensionalRaster";

async function parse(params: Record<string, string>, env: Parameters<TaskDefinition["parse"]>[1]): Promise<Parsed<PredictOptions>> {
  const { values, unknown } = collectParameters(PREDICT_INFO, params);
  const warnings = unknown.map((k) => `${k} is not a parameter of ${PREDICT_INFO.name}; it was ignored`);
  const inputDescriptor = parseJson(required(values, INPUT), INPUT);
  const outputRequest = outputDescriptor(values);
  const definition = parseKeyword(values.get("dimensionDefinition"), DIMENSION_DEFINITION);
  const wanted = parseStringList(values.get("variables"), "variables");

  const input = await env.resolveInput(inputDescriptor, INPUT);
  warnings.push(...input.warnings);
  const output: OutputTarget = await env.resolveOutput(outputRequest, "outputName");
  const cube = await env.openCube(input.location, INPUT);
  warnings.push(...inputNotes(cube, INPUT));
  try {
    const chosen = chooseTrendVariables(cube, wanted);
    const dimension = chosen[0].meta.dimension;
    const isTime = dimension === STD_TIME;
    const list = definition === "BY_INTERVAL" ? intervalValues(values, dimension, warnings) : listedValues(values, isTime);
    const unused = definition === "BY_INTERVAL" ? ["dimensionValues"] : ["start", "end", "intervalValue", "intervalUnit"];
    for (const name of unused) if (values.has(name)) warnings.push(`${name} does not apply to ${definition}; it was ignored`);
    const context = await resolveContext(values.get("context"), cube.grid, env);
    warnings.push(...context.warnings);
    return {
      options: { input: input.location, variables: chosen.map((c) => c.variable.name), values: list, ...context.plan },
      output,
      warnings,
    };
  } finally {
    await cube.close();
  }
}

function chooseTrendVariables(cube: Cube, wanted: string[] | undefined): { variable: Variable; meta: TrendMetadata }[] {
  const variables = wanted
    ? wanted.map((name) => {
        const v = cube.variables.find((x) => x.name.toLowerCase() === name.toLowerCase());
        if (!v) {
          throw new InvalidInputError(`variable "${name}" is not in the input (it has: ${cube.variables.map((x) => x.name).join(", ")})`, {
            parameter: "variables",
          });
        }
        return v;
      })
    : cube.variables;
  if (variables.length === 0) throw new InvalidInputError("the input has no variables", { parameter: INPUT });
  if (new Set(variables.map((v) => v.name)).size !== variables.length) {
    throw new InvalidInputError("variables names the same variable twice", { parameter: "variables" });
  }
  const chosen = variables.map((variable) => {
    const meta = predictableTrend(variable);
    if (typeof meta === "string") {
      throw new InvalidInputError(
        `${INPUT} must be a trend raster made by GenerateTrendRaster with a LINEAR, POLYNOMIAL or HARMONIC model; variable ${variable.name} is not: ${meta}`,
        { parameter: INPUT },
      );
    }
    return { variable, meta };
  });
  const dims = new Set(chosen.map((c) => c.meta.dimension));
  if (dims.size > 1) {
    throw new InvalidInputError(
      `the chosen variables were fitted along different dimensions (${[...dims].join(", ")}); predict them separately`,
      {
        parameter: "variables",
      },
    );
  }
  return chosen;
}

/** A dimension value from JSON or text: epoch ms for StdTime (ISO 8601 or epoch ms), a number otherwise. */
function dimensionValue(v: unknown, isTime: boolean, parameter: string): number {
  if (isTime) {
    const ms = typeof v === "number" ? v : typeof v === "string" ? parseIsoTime(v.trim().replace(/^"(.*)"$/, "$1")) : undefined;
    if (ms === undefined || !Number.isFinite(ms)) {
      throw new InvalidInputError(`${parameter}: "${String(v)}" is not a time (use ISO 8601 such as 2050-01-01 or epoch milliseconds)`, {
        parameter,
      });
    }
    return ms;
  }
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v.trim()) : NaN;
  if (!Number.isFinite(n)) throw new InvalidInputError(`${parameter}: "${String(v)}" is not a number`, { parameter });
  return n;
}

function listedValues(values: Map<string, string>, isTime: boolean): number[] {
  const parameter = "dimensionValues";
  const text = required(values, parameter).trim();
  let items: unknown[];
  if (text.startsWith("[") || text.startsWith("{")) {
    const parsed = parseJson(text, parameter);
    const list = Array.isArray(parsed) ? parsed : [parsed];
    // Also accept Subset's form [{"dimension": "StdTime", "value": ...}] (or "values": [...]).
    items = list.flatMap((e) => {
      if (e && typeof e === "object" && !Array.isArray(e)) {
        const o = e as Record<string, unknown>;
        const v = o.value ?? o.values;
        if (v === undefined) throw new InvalidInputError(`${parameter}: an object in the list has no "value"`, { parameter });
        return Array.isArray(v) ? v : [v];
      }
      return [e];
    });
  } else {
    // ArcGIS separates several values with semicolons; commas are SPEC §3's list form.
    items = text
      .split(/[;,]/)
      .map((s) => s.trim())
      .filter(Boolean);
  }
  if (items.length === 0) throw new InvalidInputError(`${parameter} lists no value`, { parameter });
  const out = [...new Set(items.map((v) => dimensionValue(v, isTime, parameter)))].sort((a, b) => a - b);
  if (out.length > MAX_PREDICTIONS) throw new InvalidInputError(`${parameter} lists more than ${MAX_PREDICTIONS} values`, { parameter });
  return out;
}

function intervalValues(values: Map<string, string>, dimension: string, warnings: string[]): number[] {
  const isTime = dimension === STD_TIME;
  const start = dimensionValue(required(values, "start"), isTime, "start");
  const end = dimensionValue(required(values, "end"), isTime, "end");
  if (end < start) throw new InvalidInputError("end is before start", { parameter: "end" });
  const step = parseNumber(values.get("intervalValue"), "intervalValue") ?? 1;
  if (!(step > 0)) throw new InvalidInputError(`intervalValue must be a positive number; got ${step}`, { parameter: "intervalValue" });
  const unitText = values.get("intervalUnit");
  const out: number[] = [];
  const push = (v: number) => {
    out.push(v);
    if (out.length > MAX_PREDICTIONS)
      throw new InvalidInputError(`the interval makes more than ${MAX_PREDICTIONS} values`, { parameter: "intervalValue" });
  };
  if (!isTime) {
    if (unitText !== undefined)
      warnings.push(`intervalUnit applies to ${STD_TIME} only; steps along ${dimension} are in its own values, it was ignored`);
    const slack = 1e-9 * step;
    for (let k = 0; start + k * step <= end + slack; k++) push(Math.min(start + k * step, end));
    return out;
  }
  if (unitText === undefined)
    throw new InvalidInputError(`intervalUnit is required to step along ${STD_TIME}`, { parameter: "intervalUnit" });
  const unit = parseKeyword(unitText, INTERVAL_UNIT) as TimeStepUnit;
  if ((unit === "MONTHS" || unit === "YEARS") && !Number.isInteger(step)) {
    throw new InvalidInputError(`intervalValue must be a whole number of ${unit.toLowerCase()}`, { parameter: "intervalValue" });
  }
  // Anchored at start: the k-th value is start + k·step units (calendar steps clamp to month ends).
  for (let k = 0; ; k++) {
    const v = Math.round(anchoredStep(start, k, step, unit));
    if (v > end) break;
    push(v);
  }
  if (out.length === 0) throw new InvalidInputError(`no value from ${formatIso(start)} to ${formatIso(end)}`, { parameter: "end" });
  return out;
}

/**
 * Write the predictions of the trend raster `cube` as a new Zarr store at `path`, with their
 * statistics; returns them.
 * @example
 * await writePredict(trend, { variables: ["sst"], values: [Date.UTC(2050, 0, 1)], window }, "/tmp/predict.zarr");
 */
export function writePredict(
  cube: Cube,
  plan: Omit<PredictPlan, "tile"> & { readonly tile?: number },
  path: string,
  walk: WalkOptions = {},
): Promise<VariableStatistics> {
  return writeDataset(predictOutput(cube, plan), path, walk);
}

/** The predictions of the trend raster `cube` as an output to write (see writeDataset). */
function predictOutput(cube: Cube, plan: Omit<PredictPlan, "tile"> & { readonly tile?: number }): Pick<OpenedInput, "spec" | "compute"> {
  const full: PredictPlan = { ...plan, tile: plan.tile ?? TILE };
  return {
    spec() {
      const grid = windowGrid(cube.grid, plan.window);
      const chunk = sliceChunk(plan.window, full.tile);
      const variables = predictLayout(cube, full).map((l) => ({
        name: l.name,
        description: l.description,
        unit: l.metadata.variableUnit ?? "",
        pixelType: "F32" as const,
        nodata: NaN,
        dimensions: l.dimensions,
        attributes: { "strata:prediction": { model: l.metadata.model, dimension: l.metadata.dimension, bands: l.metadata.bands } },
        outputChunks: [...l.dimensions.map(() => 1), chunk.height, chunk.width],
      }));
      const { "strata:statistics": _inputStatistics, ...attributes } = cube.attributes;
      return { grid, attributes, variables };
    },
    compute: (sink, walk) => computePredict(cube, full, sink, walk),
  };
}

const predictDataset: DatasetTask<PredictOptions> = {
  async open(options) {
    const { cube } = applyContext(await openLocation(options.input), options);
    return { cube, ...predictOutput(cube, options), close: () => cube.close() };
  },
  describe: (options) => `Predicting ${options.variables.join(", ")} at ${options.values.length} value(s)`,
};

export const predictTask: TaskDefinition<PredictOptions> = { info: PREDICT_INFO, parse, ...datasetRunners(predictDataset) };
