/**
 * The web app's form generator against the real task descriptions: each parameter gets the
 * widget and the condition it should (dimensionRanges only with BY_RANGES, frequency with
 * HARMONIC or POLYNOMIAL…), what the forms send is what the server accepts, and the server's
 * 400s are tied back to the field they name. No browser: the modules are plain TypeScript.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ApiError, restBase } from "../../web/src/api/client.js";
import { isAnomaly, trendOf } from "../../web/src/api/strataAttributes.js";
import type { IdentifyAnswer, Item, TaskInfo, Variable } from "../../web/src/api/types.js";
import { seriesOf } from "../../web/src/chart/series.js";
import { type JobRow, durationText } from "../../web/src/jobs/jobModel.js";
import { type FieldSpec, applies, fieldSpecs } from "../../web/src/tasks/fieldSpec.js";
import { serverErrors } from "../../web/src/tasks/serverErrors.js";
import { type FormValues, choiceOf, initialValue, toParams, validate } from "../../web/src/tasks/values.js";
import { type TestServer, startTestServer, waitForJob } from "../helpers/server.js";

const TOOLS = "/rest/services/System/RasterAnalysisTools/GPServer";
const WINDS = "/rest/services/Hosted/navy_winds_10deg/ImageServer";
const SST = "/rest/services/Hosted/sst_climatology_4deg/ImageServer";

let server: TestServer;
let token: string;
const tasks = new Map<string, TaskInfo>();
let items: Item[];

before(async () => {
  server = await startTestServer();
  await server.addUser("ana", "publisher", "ana-password-1");
  token = await server.token("ana", "ana-password-1");
  for (const name of [
    "SubsetMultidimensionalRaster",
    "GenerateMultidimensionalAnomaly",
    "GenerateTrendRaster",
    "PredictUsingTrendRaster",
  ]) {
    tasks.set(name, await server.call(`${TOOLS}/${name}`, {}, { method: "GET" }));
  }
  items = (await server.call("/sharing/rest/search", { q: "", num: "100" }, { token, method: "GET" })).results;
});
after(() => server?.close());

const specsOf = (task: string) => fieldSpecs(tasks.get(task)!.parameters);

/** name → [kind, condition keywords joined] for a compact comparison. */
function layout(task: string): Record<string, string> {
  return Object.fromEntries(
    specsOf(task).map((s) => [
      s.parameter.name,
      `${s.kind}${s.required ? "!" : ""}${s.condition ? ` if ${s.condition.parameter}=${s.condition.values.join("|")}` : ""}`,
    ]),
  );
}

/** A form filled as a user would: defaults, then the given values. */
function fill(specs: readonly FieldSpec[], values: FormValues): FormValues {
  const filled: FormValues = {};
  for (const s of specs) filled[s.parameter.name] = initialValue(s);
  return { ...filled, ...values };
}

const text = (t: string) => ({ type: "text" as const, text: t });
const itemId = (path: string) => items.find((i) => i.url?.endsWith(path))!.id;

/** Submit what the form would send; the answer (a job or an error envelope). */
async function submit(task: string, values: FormValues, timeAxis = true): Promise<{ jobId?: string; error?: { details: string[] } }> {
  const specs = specsOf(task);
  assert.deepEqual(validate(specs, values, timeAxis), {}, "the form's own checks pass");
  return server.call(`${TOOLS}/${task}/submitJob`, toParams(specs, values, items, timeAxis), { token });
}

describe("the task form generator", { timeout: 60_000 }, () => {
  it("gives each parameter its widget and condition", () => {
    assert.deepEqual(layout("SubsetMultidimensionalRaster"), {
      inputMultidimensionalRaster: "raster!",
      outputName: "output!",
      variables: "variables",
      dimensionDefinition: "choice",
      dimensionRanges: "ranges if dimensionDefinition=BY_RANGES",
      dimensionValues: "sliceValues if dimensionDefinition=BY_VALUE",
      dimension: "dimension if dimensionDefinition=BY_ITERATION",
      startOfFirstIteration: "dimensionValue if dimensionDefinition=BY_ITERATION",
      endOfFirstIteration: "dimensionValue if dimensionDefinition=BY_ITERATION",
      iterationStep: "double if dimensionDefinition=BY_ITERATION",
      iterationUnit: "choice if dimensionDefinition=BY_ITERATION",
      context: "context",
    });
    const anomaly = layout("GenerateMultidimensionalAnomaly");
    assert.equal(anomaly.referenceMeanRaster, "raster if calculationInterval=EXTERNAL_RASTER");
    assert.equal(anomaly.ignoreNodata, "boolean");
    assert.equal(anomaly.method, "choice");
    const trend = layout("GenerateTrendRaster");
    assert.equal(trend.dimension, "dimension!");
    assert.equal(trend.frequency, "integer if trendLineType=HARMONIC|POLYNOMIAL");
    assert.equal(trend.cycleLength, "double if trendLineType=HARMONIC");
    assert.equal(trend.seasonalPeriod, "choice if trendLineType=SEASONAL-KENDALL");
    assert.equal(trend.slopePValue, "boolean");
    const predict = layout("PredictUsingTrendRaster");
    assert.equal(predict.dimensionValues, "valueList if dimensionDefinition=BY_VALUE");
    assert.equal(predict.start, "dimensionValue if dimensionDefinition=BY_INTERVAL");
    assert.equal(predict.intervalUnit, "choice if dimensionDefinition=BY_INTERVAL");
  });

  it("shows a conditional field only with its keyword", () => {
    const specs = specsOf("GenerateTrendRaster");
    const frequency = specs.find((s) => s.parameter.name === "frequency")!;
    const values = fill(specs, {});
    assert.equal(applies(frequency, choiceOf(values)), false, "LINEAR is the default");
    assert.equal(applies(frequency, choiceOf({ ...values, trendLineType: text("polynomial") })), true, "keywords in any case");
  });

  it("checks required fields, numbers and names before sending", () => {
    const specs = specsOf("SubsetMultidimensionalRaster");
    const errors = validate(
      specs,
      fill(specs, {
        outputName: text("two words"),
        dimensionDefinition: text("BY_ITERATION"),
        iterationStep: text("1,5"),
        startOfFirstIteration: text("someday"),
      }),
      true,
    );
    assert.deepEqual(Object.keys(errors).sort(), ["inputMultidimensionalRaster", "iterationStep", "outputName", "startOfFirstIteration"]);
  });

  it("sends what the server accepts: Subset BY_VALUE and BY_ITERATION, Trend HARMONIC, Predict BY_INTERVAL", async () => {
    const winds = itemId(WINDS);
    const byValue = await submit(
      "SubsetMultidimensionalRaster",
      fill(specsOf("SubsetMultidimensionalRaster"), {
        inputMultidimensionalRaster: text(winds),
        outputName: text("two_months"),
        variables: { type: "list", items: ["VWND"] },
        dimensionDefinition: text("BY_VALUE"),
        dimensionValues: { type: "slices", values: { StdTime: ["380059200000", "382689000000"] } },
      }),
    );
    const byIteration = await submit(
      "SubsetMultidimensionalRaster",
      fill(specsOf("SubsetMultidimensionalRaster"), {
        inputMultidimensionalRaster: text(winds),
        outputName: text("winters"),
        dimensionDefinition: text("BY_ITERATION"),
        dimension: text("StdTime"),
        startOfFirstIteration: text("1982-01-01"),
        endOfFirstIteration: text("1982-02-28"),
        iterationStep: text("1"),
        iterationUnit: text("YEARS"),
      }),
    );
    const harmonic = await submit(
      "GenerateTrendRaster",
      fill(specsOf("GenerateTrendRaster"), {
        inputMultidimensionalRaster: text(winds),
        outputName: text("harmonic_trend"),
        dimension: text("StdTime"),
        trendLineType: text("HARMONIC"),
        frequency: text("2"),
      }),
    );
    for (const answer of [byValue, byIteration, harmonic]) assert.ok(answer.jobId, JSON.stringify(answer));
    const months = await waitForJob(server, "SubsetMultidimensionalRaster", byValue.jobId!, token);
    assert.equal(months.jobStatus, "esriJobSucceeded", JSON.stringify(months.messages));
    const kept = await server.call("/rest/services/Hosted/two_months/ImageServer/multidimensionalInfo", {}, { token, method: "GET" });
    assert.deepEqual(kept.multidimensionalInfo.variables[0].dimensions[0].values, [380059200000, 382689000000]);

    const trend = await waitForJob(server, "GenerateTrendRaster", harmonic.jobId!, token);
    assert.equal(trend.jobStatus, "esriJobSucceeded", JSON.stringify(trend.messages));
    // The trend says what it was fitted along (Predict takes dates) and names its bands.
    const fitted = await server.call("/rest/services/Hosted/harmonic_trend/ImageServer/multidimensionalInfo", {}, { token, method: "GET" });
    const trendVariable: Variable = fitted.multidimensionalInfo.variables[0];
    assert.equal(trendOf(trendVariable)?.dimension, "StdTime");
    assert.equal(isAnomaly(trendVariable), false);
    // Served multiband (SPEC §8): the band names in the root, no Band dimension.
    assert.ok(!trendVariable.dimensions.some((d) => d.name === "Band"), "no Band dimension");
    const root = await server.call("/rest/services/Hosted/harmonic_trend/ImageServer", {}, { token, method: "GET" });
    const bands: string[] = root.bandNames;
    assert.deepEqual(bands, trendOf(trendVariable)?.bands);
    assert.ok(
      bands.every((b) => /^[A-Za-z]/.test(b)),
      `band names, not numbers: ${bands.join(", ")}`,
    );
    items = (await server.call("/sharing/rest/search", { q: "", num: "100" }, { token, method: "GET" })).results;
    const predict = await submit(
      "PredictUsingTrendRaster",
      fill(specsOf("PredictUsingTrendRaster"), {
        inputMultidimensionalRaster: text(itemId("/harmonic_trend/ImageServer")),
        outputName: text("decade"),
        dimensionDefinition: text("BY_INTERVAL"),
        start: text("2000-01-01"),
        end: text("2009-01-01"),
        intervalUnit: text("YEARS"),
      }),
    );
    assert.ok(predict.jobId, JSON.stringify(predict));
    const done = await waitForJob(server, "PredictUsingTrendRaster", predict.jobId!, token);
    assert.equal(done.jobStatus, "esriJobSucceeded", JSON.stringify(done.messages));
    // The server's job times give the duration with no bookkeeping of the page's own.
    const row: JobRow = { task: "PredictUsingTrendRaster", jobId: predict.jobId!, status: done.jobStatus, info: done };
    assert.match(durationText(row, Date.now()) ?? "", /^(took \d+ s|waited \d+ s · ran \d+ s)$/);
    await waitForJob(server, "SubsetMultidimensionalRaster", byIteration.jobId!, token);
  });

  it("sends the environment settings as the context the server takes, and checks them first", async () => {
    const specs = specsOf("SubsetMultidimensionalRaster");
    const context = {
      west: "-40",
      south: "-20",
      east: "60.5",
      north: "30",
      cellSize: "500000",
      outSR: "3857",
      resampling: "BILINEAR",
      parallel: "50%",
      compression: "NONE",
    };
    const values = fill(specs, {
      inputMultidimensionalRaster: text(itemId(WINDS)),
      outputName: text("winds_context"),
      context: { type: "context", context },
    });
    assert.deepEqual(JSON.parse(toParams(specs, values, items, true).context), {
      extent: { xmin: -40, ymin: -20, xmax: 60.5, ymax: 30, spatialReference: { wkid: 4326 } },
      cellSize: 500000,
      outSR: { wkid: 3857 },
      resamplingMethod: "BILINEAR",
      parallelProcessingFactor: "50%",
      compression: "NONE",
    });
    const answer = await submit("SubsetMultidimensionalRaster", values);
    assert.ok(answer.jobId, JSON.stringify(answer));
    const job = await waitForJob(server, "SubsetMultidimensionalRaster", answer.jobId!, token);
    assert.equal(job.jobStatus, "esriJobSucceeded", JSON.stringify(job.messages));
    const info = await server.call("/rest/services/Hosted/winds_context/ImageServer", {}, { token, method: "GET" });
    assert.equal(info.spatialReference.latestWkid ?? info.spatialReference.wkid, 3857);
    // The cell size is in the output's units: metres in Web Mercator.
    assert.equal(info.pixelSizeX, 500000);
    // Nothing set: no context sent. Half an extent, a reversed one, a bad cell size or code: refused here.
    assert.equal(toParams(specs, fill(specs, {}), items, true).context, undefined);
    const refused = (patch: Record<string, string>) =>
      validate(specs, fill(specs, { context: { type: "context", context: { ...context, ...patch } } }), true).context;
    assert.match(refused({ north: "" }) ?? "", /four numbers/);
    assert.match(refused({ west: "70" }) ?? "", /east edge must be east/);
    assert.match(refused({ south: "-95" }) ?? "", /between -90 and 90/);
    assert.match(refused({ cellSize: "-1" }) ?? "", /positive number/);
    assert.match(refused({ outSR: "web mercator" }) ?? "", /EPSG code/);
    assert.match(refused({ parallel: "lots" }) ?? "", /count of threads/);
  });

  it("ties the server's 400s to the fields they name", async () => {
    const specs = specsOf("SubsetMultidimensionalRaster");
    const names = specs.map((s) => s.parameter.name);
    const cases: [FormValues, string][] = [
      [{ outputName: text("sst_climatology_4deg") }, "outputName"],
      [{ variables: { type: "list", items: ["NOPE"] } }, "variables"],
      [
        { dimensionDefinition: text("BY_ITERATION"), dimension: text("StdTime"), startOfFirstIteration: text("1982-01-01") },
        "endOfFirstIteration",
      ],
    ];
    for (const [values, field] of cases) {
      const answer = await server.call(
        `${TOOLS}/SubsetMultidimensionalRaster/submitJob`,
        toParams(
          specs,
          fill(specs, { inputMultidimensionalRaster: text(itemId(WINDS)), outputName: text("fine_name"), ...values }),
          items,
          true,
        ),
        { token },
      );
      assert.ok(answer.error, `expected a 400 for ${field}`);
      const { code, message, details } = answer.error;
      const mapped = serverErrors(new ApiError(message, code, details), names);
      assert.deepEqual(Object.keys(mapped.fields), [field], `${details.join(" ")} → ${JSON.stringify(mapped)}`);
    }
  });

  it("charts one point per slice, sorted, from identify", async () => {
    const point = JSON.stringify({ x: 0, y: 0, spatialReference: { wkid: 3857 } });
    for (const [path, slices] of [
      [SST, 12],
      [WINDS, 132],
    ] as const) {
      const answer: IdentifyAnswer = await server.call(
        `${path}/identify`,
        { geometry: point, geometryType: "esriGeometryPoint", processAsMultidimensional: "true" },
        { token, method: "GET" },
      );
      const md = await server.call(`${path}/multidimensionalInfo`, {}, { token, method: "GET" });
      const variable: Variable = md.multidimensionalInfo.variables[0];
      const series = seriesOf(answer, variable, {});
      assert.equal(series.dimension, "StdTime");
      assert.equal(series.x.length, slices);
      assert.deepEqual(series.x, variable.dimensions[0].values);
      assert.ok(series.y.some((v) => v !== null));
    }
  });

  it("says how long a job waited and ran", () => {
    const row = (status: JobRow["status"], times: { submitted: number; started?: number; finished?: number }): JobRow => ({
      task: "T",
      jobId: "j",
      status,
      submitted: times.submitted,
      info: { jobId: "j", jobStatus: status, ...times },
    });
    assert.equal(durationText(row("esriJobSucceeded", { submitted: 0, started: 4000, finished: 16_000 }), 99_000), "waited 4 s · ran 12 s");
    assert.equal(durationText(row("esriJobSucceeded", { submitted: 0, started: 20, finished: 12_000 }), 99_000), "took 12 s");
    assert.equal(durationText(row("esriJobWaiting", { submitted: 0 }), 3000), "waiting for 3 s");
    assert.equal(durationText(row("esriJobExecuting", { submitted: 0, started: 2000 }), 10_000), "waited 2 s · running for 8 s");
    assert.equal(durationText(row("esriJobCancelled", { submitted: 0, finished: 5000 }), 99_000), "took 5 s");
    assert.equal(durationText({ task: "T", jobId: "j", status: "esriJobSucceeded" }, 1), undefined);
  });

  it("finds the REST base from the page's own URL", () => {
    assert.equal(restBase({ origin: "http://h:1", pathname: "/arcgis/" }), "http://h:1/arcgis");
    assert.equal(restBase({ origin: "http://h:1", pathname: "/arcgis/index.html" }), "http://h:1/arcgis");
    assert.equal(restBase({ origin: "http://h:1", pathname: "/" }), "http://h:1");
  });
});
