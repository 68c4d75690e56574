/**
 * GenerateTrendRaster (SPEC §8, docs/tasks.md): per pixel, a least-squares trend (LINEAR,
 * POLYNOMIAL, HARMONIC) or a Mann-Kendall / Seasonal-Kendall test along one dimension,
 * written as a float64 multiband trend raster whose `strata:trend` attribute tells
 * PredictUsingTrendRaster how to evaluate it.
 */
import { MIN_KENDALL_VALUES } from "../analysis/kendall.js";
import {
  coefficientCount,
  type TrendModel,
  TREND_LINE_TYPES,
  type TrendStatistics,
  type TrendLineType,
  BAND_DIMENSION,
  TREND_ATTRIBUTE,
} from "../analysis/trendModel.js";
import { TREND_MEMORY_BUDGET, type TrendPlan, trendLayout } from "../analysis/trendRaster.js";
import { InvalidInputError } from "../cube/errors.js";
import { windowGrid } from "../cube/grid.js";
import { type Cube, type Variable, STD_TIME } from "../cube/types.js";
import { openLocation } from "../io/open.js";

import { chooseTrendWalk, streamedTrendChunks, trendWalk } from "./trendStreaming.js";
import { type ContextPlan, applyContext, resolveContext } from "./context.js";
import { inputNotes } from "./inputNotes.js";
import {
  type ParameterSpec,
  type TaskInfo,
  collectParameters,
  parseBoolean,
  parseJson,
  parseKeyword,
  parseNumber,
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
import type { InputLocation, OutputTarget, Parsed, TaskDefinition } from "./types.js";

/** Largest POLYNOMIAL order and HARMONIC count accepted (beyond it the stored basis is meaningless). */
export const MAX_FREQUENCY = 20;
/** Longest series the Kendall tests take (Sen's slope holds n(n−1)/2 pair slopes per pixel). */
export const MAX_KENDALL_SLICES = 4000;
const DAYS_PER_YEAR = 365.25;

const TREND_LINE_TYPE: ParameterSpec = {
  name: "trendLineType",
  dataType: "GPString",
  displayName: "Trend Line Type",
  description:
    "LINEAR (Slope, Intercept), POLYNOMIAL (Polynomial_p .. Polynomial_0), HARMONIC (Slope, Intercept, Harmonic_sin1, Harmonic_cos1 ..), MANN-KENDALL or SEASONAL-KENDALL (Sens_Slope, P_Value, MK_Score, S_Variance, Z_Score).",
  defaultValue: "LINEAR",
  choiceList: TREND_LINE_TYPES,
};
const CYCLE_UNIT: ParameterSpec = {
  name: "cycleUnit",
  dataType: "GPString",
  displayName: "Cycle Unit",
  description: "HARMONIC: the unit of cycleLength; a year is 365.25 days.",
  defaultValue: "YEARS",
  choiceList: ["DAYS", "YEARS"],
};
const SEASONAL_PERIOD: ParameterSpec = {
  name: "seasonalPeriod",
  dataType: "GPString",
  displayName: "Seasonal Period",
  description: "SEASONAL-KENDALL: seasons are days of the year (DAYS) or calendar months (MONTHS) of StdTime.",
  defaultValue: "DAYS",
  choiceList: ["DAYS", "MONTHS"],
};

export const TREND_INFO: TaskInfo = {
  name: "GenerateTrendRaster",
  displayName: "Generate Trend Raster",
  description:
    "Fits a trend to every pixel of a multidimensional raster along a dimension (usually StdTime) and publishes the coefficients (or Mann-Kendall statistics) as a multiband trend raster.",
  category: "Multidimensional Analysis",
  parameters: [
    inputParameter("Input Multidimensional Raster", "The raster to analyse"),
    OUTPUT_NAME_PARAMETER,
    {
      name: "dimension",
      dataType: "GPString",
      displayName: "Dimension",
      description: "The dimension to fit along (usually StdTime); the chosen variables must have it.",
      required: true,
    },
    {
      name: "variables",
      dataType: "GPMultiValue:GPString",
      displayName: "Variables",
      description: "Variables to fit, as a JSON list or comma-separated; all variables that have the dimension when absent.",
    },
    TREND_LINE_TYPE,
    {
      name: "frequency",
      dataType: "GPLong",
      displayName: "Frequency",
      description: `HARMONIC: the number of harmonic terms (default 1); POLYNOMIAL: the order (default 2, at least 1). At most ${MAX_FREQUENCY}.`,
    },
    {
      name: "cycleLength",
      dataType: "GPDouble",
      displayName: "Cycle Length",
      description: "HARMONIC: the length of the cycle, in cycleUnit (default 1).",
      defaultValue: 1,
    },
    CYCLE_UNIT,
    {
      name: "ignoreNodata",
      dataType: "GPBoolean",
      displayName: "Ignore NoData",
      description:
        "true (or DATA): nodata slices are left out of each pixel's fit; false (or NODATA): a pixel with any nodata slice is nodata.",
      defaultValue: true,
    },
    {
      name: "rmse",
      dataType: "GPBoolean",
      displayName: "RMSE",
      description: "Add the RMSE band (least-squares models).",
      defaultValue: true,
    },
    {
      name: "r2",
      dataType: "GPBoolean",
      displayName: "R-Squared",
      description: "Add the R2 band (least-squares models).",
      defaultValue: false,
    },
    {
      name: "slopePValue",
      dataType: "GPBoolean",
      displayName: "Slope P-Value",
      description: "Add the SlopePValue band: two-sided t test of the slope (LINEAR and HARMONIC only).",
      defaultValue: false,
    },
    SEASONAL_PERIOD,
    CONTEXT_PARAMETER,
  ],
};

/** Options of a trend job (JSON, stored with the job and handed to the worker). */
export interface TrendOptions extends TrendPlan, ContextPlan {
  readonly input: InputLocation;
}

async function parse(params: Record<string, string>, env: Parameters<TaskDefinition["parse"]>[1]): Promise<Parsed<TrendOptions>> {
  const { values, unknown } = collectParameters(TREND_INFO, params);
  const warnings = unknown.map((k) => `${k} is not a parameter of ${TREND_INFO.name}; it was ignored`);
  const inputDescriptor = parseJson(required(values, "inputMultidimensionalRaster"), "inputMultidimensionalRaster");
  const outputRequest = outputDescriptor(values);
  const dimensionName = required(values, "dimension").trim();
  const wanted = parseStringList(values.get("variables"), "variables");
  const type = parseKeyword(values.get("trendLineType"), TREND_LINE_TYPE) as TrendLineType;
  const model = parseModel(type, values, warnings);
  const statistics = parseStatistics(type, values, warnings);
  const ignoreNoData = parseIgnoreNoData(values.get("ignoreNodata"));

  const input = await env.resolveInput(inputDescriptor, "inputMultidimensionalRaster");
  warnings.push(...input.warnings);
  const output: OutputTarget = await env.resolveOutput(outputRequest, "outputName");
  const cube = await env.openCube(input.location, "inputMultidimensionalRaster");
  warnings.push(...inputNotes(cube, "inputMultidimensionalRaster"));
  try {
    const { variables, dimension } = chooseVariables(cube, wanted, dimensionName);
    if (type === "SEASONAL-KENDALL" && dimension !== STD_TIME) {
      throw new InvalidInputError(`SEASONAL-KENDALL groups slices by season of ${STD_TIME}; it cannot fit along ${dimension}`, {
        parameter: "dimension",
      });
    }
    const slices = variables[0].dimensions.find((d) => d.name === dimension)!.values.length;
    if ((type === "MANN-KENDALL" || type === "SEASONAL-KENDALL") && slices > MAX_KENDALL_SLICES) {
      throw new InvalidInputError(
        `${type} takes at most ${MAX_KENDALL_SLICES} slices along ${dimension} (Sen's slope compares every pair); this input has ${slices}`,
        { parameter: "trendLineType" },
      );
    }
    const needed = type === "MANN-KENDALL" || type === "SEASONAL-KENDALL" ? MIN_KENDALL_VALUES : coefficientCount(model) + 1;
    if (slices < needed) {
      warnings.push(`${dimension} has ${slices} slice(s) and ${type} needs at least ${needed} valid ones: every pixel will be nodata`);
    }
    const context = await resolveContext(values.get("context"), cube.grid, env);
    warnings.push(...context.warnings);
    return {
      options: {
        input: input.location,
        variables: variables.map((v) => v.name),
        dimension,
        model,
        statistics,
        ignoreNoData,
        ...context.plan,
      },
      output,
      warnings,
    };
  } finally {
    await cube.close();
  }
}

function parseModel(type: TrendLineType, values: Map<string, string>, warnings: string[]): TrendModel {
  const frequencyText = values.get("frequency");
  const harmonic = type === "HARMONIC";
  if (harmonic || type === "POLYNOMIAL") {
    const frequency = parseNumber(frequencyText, "frequency") ?? (harmonic ? 1 : 2);
    if (!Number.isInteger(frequency) || frequency < 1 || frequency > MAX_FREQUENCY) {
      const what = harmonic ? "the number of harmonic terms" : "the polynomial order";
      throw new InvalidInputError(`frequency (${what}) must be a whole number from 1 to ${MAX_FREQUENCY}; got ${frequencyText}`, {
        parameter: "frequency",
      });
    }
    if (type === "POLYNOMIAL") {
      ignored(values, ["cycleLength", "cycleUnit", "seasonalPeriod"], type, warnings);
      return { type, order: frequency };
    }
    const cycleLength = parseNumber(values.get("cycleLength"), "cycleLength") ?? 1;
    if (!(cycleLength > 0))
      throw new InvalidInputError(`cycleLength must be a positive number; got ${cycleLength}`, { parameter: "cycleLength" });
    const unit = parseKeyword(values.get("cycleUnit"), CYCLE_UNIT);
    ignored(values, ["seasonalPeriod"], type, warnings);
    return { type, harmonics: frequency, cycleLengthDays: cycleLength * (unit === "YEARS" ? DAYS_PER_YEAR : 1) };
  }
  // Validate what is given even where it does not apply, then say it was ignored.
  if (frequencyText !== undefined) parseNumber(frequencyText, "frequency");
  if (values.has("cycleLength")) parseNumber(values.get("cycleLength"), "cycleLength");
  if (values.has("cycleUnit")) parseKeyword(values.get("cycleUnit"), CYCLE_UNIT);
  ignored(values, ["frequency", "cycleLength", "cycleUnit"], type, warnings);
  if (type === "SEASONAL-KENDALL")
    return { type, seasonalPeriod: parseKeyword(values.get("seasonalPeriod"), SEASONAL_PERIOD) as "DAYS" | "MONTHS" };
  if (values.has("seasonalPeriod")) parseKeyword(values.get("seasonalPeriod"), SEASONAL_PERIOD);
  ignored(values, ["seasonalPeriod"], type, warnings);
  return { type };
}

function ignored(values: Map<string, string>, names: readonly string[], type: string, warnings: string[]): void {
  for (const name of names) if (values.has(name)) warnings.push(`${name} does not apply to ${type}; it was ignored`);
}

function parseStatistics(type: TrendLineType, values: Map<string, string>, warnings: string[]): TrendStatistics {
  const rmse = parseBoolean(values.get("rmse"), "rmse", true);
  const r2 = parseBoolean(values.get("r2"), "r2", false);
  const slopePValue = parseBoolean(values.get("slopePValue"), "slopePValue", false);
  if (type === "MANN-KENDALL" || type === "SEASONAL-KENDALL") {
    for (const [name, on] of [
      ["r2", r2],
      ["slopePValue", slopePValue],
      ["rmse", rmse && values.has("rmse")],
    ] as const) {
      if (on)
        warnings.push(
          `${name} does not apply to ${type} (its bands are Sens_Slope, P_Value, MK_Score, S_Variance, Z_Score); it was ignored`,
        );
    }
    return { rmse: false, r2: false, slopePValue: false };
  }
  if (type === "POLYNOMIAL" && slopePValue) {
    throw new InvalidInputError("slopePValue is offered for LINEAR and HARMONIC trends only, not POLYNOMIAL", { parameter: "slopePValue" });
  }
  return { rmse, r2, slopePValue };
}

/** The variables to fit and the dimension's canonical name. */
function chooseVariables(cube: Cube, wanted: string[] | undefined, dimensionName: string): { variables: Variable[]; dimension: string } {
  const hasDim = (v: Variable) => v.dimensions.find((d) => d.name.toLowerCase() === dimensionName.toLowerCase());
  let variables: Variable[];
  if (wanted) {
    variables = wanted.map((name) => {
      const v = cube.variables.find((x) => x.name.toLowerCase() === name.toLowerCase());
      if (!v) {
        throw new InvalidInputError(`variable "${name}" is not in the input (it has: ${cube.variables.map((x) => x.name).join(", ")})`, {
          parameter: "variables",
        });
      }
      if (!hasDim(v)) {
        const dims = v.dimensions.map((d) => d.name).join(", ") || "none";
        throw new InvalidInputError(`variable ${v.name} has no dimension "${dimensionName}" (its dimensions: ${dims})`, {
          parameter: "dimension",
        });
      }
      return v;
    });
    if (new Set(variables.map((v) => v.name)).size !== variables.length) {
      throw new InvalidInputError("variables names the same variable twice", { parameter: "variables" });
    }
  } else {
    variables = cube.variables.filter(hasDim);
    if (variables.length === 0) {
      const dims = [...new Set(cube.variables.flatMap((v) => v.dimensions.map((d) => d.name)))].join(", ") || "none";
      throw new InvalidInputError(`no variable of the input has the dimension "${dimensionName}" (its dimensions: ${dims})`, {
        parameter: "dimension",
      });
    }
  }
  const dimension = hasDim(variables[0])!.name;
  for (const v of variables) {
    if (v.dimensions.some((d) => d.name === BAND_DIMENSION && d.name !== dimension)) {
      throw new InvalidInputError(
        `variable ${v.name} already has a ${BAND_DIMENSION} dimension, which the trend raster's bands would replace; fit along it or choose other variables`,
        {
          parameter: "variables",
        },
      );
    }
  }
  return { variables, dimension };
}

/**
 * Write the trend raster of `cube` planned by `plan` as a new Zarr store at `path`, with its
 * statistics; returns them.
 * @example
 * await writeTrend(cube, { variables: ["sst"], dimension: "StdTime", model: { type: "LINEAR" },
 *   statistics: { rmse: true, r2: false, slopePValue: false }, ignoreNoData: true, window }, "/tmp/trend.zarr");
 */
export function writeTrend(cube: Cube, plan: TrendPlan, path: string, walk: WalkOptions = {}): Promise<VariableStatistics> {
  return writeDataset(trendOutput(cube, plan), path, walk);
}

/** The trend raster of `cube` as an output to write (see writeDataset), walked as its storage suits. */
function trendOutput(cube: Cube, plan: TrendPlan): Pick<OpenedInput, "spec" | "compute" | "walk" | "merge"> {
  // Threads share the job's memory (perThread divides the tile budget among them).
  const threads = Math.max(1, Math.round(TREND_MEMORY_BUDGET / (plan.tileBudgetBytes ?? TREND_MEMORY_BUDGET)));
  const chosen = chooseTrendWalk(cube, plan, threads);
  return {
    spec: () => ({
      grid: windowGrid(cube.grid, plan.window),
      attributes: cube.attributes,
      variables: trendLayout(cube, chosen.kind === "transpose" ? chosen.plan : plan).map((l) => ({
        name: l.name,
        description: l.description,
        unit: "",
        pixelType: "F64" as const,
        nodata: NaN,
        dimensions: l.dimensions,
        attributes: { [TREND_ATTRIBUTE]: l.metadata },
        outputChunks: chosen.kind === "stream" ? streamedTrendChunks(l.dimensions.length, l.bands.length, chosen.plan) : l.outputChunks,
      })),
    }),
    ...trendWalk(cube, chosen, plan),
  };
}

const trendDataset: DatasetTask<TrendOptions> = {
  async open(options) {
    const { cube } = applyContext(await openLocation(options.input), options);
    return { cube, ...trendOutput(cube, options), close: () => cube.close() };
  },
  perThread: (options, threads) => ({ ...options, tileBudgetBytes: TREND_MEMORY_BUDGET / threads }),
  describe: (options) => `Fitting ${options.model.type} trends along ${options.dimension} for ${options.variables.join(", ")}`,
};

export const trendTask: TaskDefinition<TrendOptions> = { info: TREND_INFO, parse, ...datasetRunners(trendDataset) };
