/**
 * What would fail late is refused at submit, and nothing private leaks on the way (issue 10
 * §3, §4): an output folder that is unknown or another user's, a new service name a running
 * job will create (two submits at once: one wins), a used-up quota; bad paging numbers and
 * empty variable lists are 400s; search needs a token when anonymous access is off; another
 * user's folder title shows nowhere; a token inside an input URL is not echoed in the job.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createItem } from "../../src/portal/items.js";
import { type TestServer, startTestServer } from "../helpers/server.js";

let server: TestServer;
let ana = "";
let bob = "";
let bobFolder = "";
const NAVY = '{"itemId":"NAVY"}';
let navy = "";

before(async () => {
  server = await startTestServer({});
  await server.addUser("ana", "publisher", "ana-password-1");
  await server.addUser("bob", "publisher", "bob-password-1");
  ana = await server.token("ana", "ana-password-1");
  bob = await server.token("bob", "bob-password-1");
  bobFolder = (await server.call("/sharing/rest/content/users/bob/createFolder", { title: "bob secret plans" }, { token: bob })).folder.id;
  const admin = await server.token("admin", server.adminPassword);
  const found = await server.call("/sharing/rest/search", { q: "navy_winds_10deg" }, { token: admin });
  navy = NAVY.replace("NAVY", found.results[0].id);
});
after(async () => {
  await server.close();
});

const submit = (task: string, params: Record<string, string>, token = ana) =>
  server.call(`${server.tools.replace(server.url, "")}/${task}/submitJob`, params, { token });

function refused(answer: { error?: { code: number; message: string; details: string[] } }, parameter: RegExp, not?: string): string {
  assert.equal(answer.error?.code, 400, JSON.stringify(answer));
  const text = [answer.error!.message, ...answer.error!.details].join(" ");
  assert.match(text, parameter);
  if (not) assert.ok(!text.includes(not), `no ${not} in ${text}`);
  return text;
}

describe("submit refuses now what would fail at the end", () => {
  it("an output folder that does not exist, or is another user's (without its title)", async () => {
    const out = (folderId: string) => JSON.stringify({ serviceProperties: { name: `f_${folderId.length}` }, itemProperties: { folderId } });
    refused(
      await submit("SubsetMultidimensionalRaster", {
        inputMultidimensionalRaster: navy,
        outputName: out("0123456789abcdef0123456789abcdef"),
      }),
      /outputName/,
    );
    refused(
      await submit("SubsetMultidimensionalRaster", { inputMultidimensionalRaster: navy, outputName: out(bobFolder) }),
      /outputName.*folder/,
      "bob secret plans",
    );
  });

  it("a new service name that a job not yet finished will create: of two submits at once, one is accepted", async () => {
    const params = { inputMultidimensionalRaster: navy, outputName: '{"serviceProperties":{"name":"same_name"}}' };
    const answers = await Promise.all([submit("SubsetMultidimensionalRaster", params), submit("SubsetMultidimensionalRaster", params)]);
    const accepted = answers.filter((a) => a.jobId);
    assert.equal(accepted.length, 1, JSON.stringify(answers));
    refused(
      answers.find((a) => !a.jobId),
      /outputName.*same_name.*not finished|already taken/,
    );
  });

  it("an output when the user's quota is used up", async () => {
    await server.addUser("cy", "publisher", "cy-password-1");
    const cy = await server.token("cy", "cy-password-1");
    // What cy's items take, as recorded when they were stored: more than the default 20 GiB.
    createItem(server.strata.db, "cy", { title: "a big cube", properties: { bytes: 21 * 1024 ** 3 } });
    const text = refused(
      await submit("SubsetMultidimensionalRaster", { inputMultidimensionalRaster: navy, outputName: "cy_out" }, cy),
      /quota/,
    );
    assert.match(text, /outputName|quota/);
  });
});

describe("400s, not 500s", () => {
  it("jobs?start=1e309 and other paging numbers that are not whole", async () => {
    for (const start of ["1e309", "-1", "0", "2.5", "x"]) {
      refused(
        await server.call(`${server.tools.replace(server.url, "")}/SubsetMultidimensionalRaster/jobs`, { start }, { token: ana }),
        /start/,
      );
    }
    refused(
      await server.call(`${server.tools.replace(server.url, "")}/SubsetMultidimensionalRaster/jobs`, { num: "1e309" }, { token: ana }),
      /num/,
    );
  });

  it("GenerateTrendRaster with variables=[] or ,,,", async () => {
    for (const variables of ["[]", ",,,", '[""]']) {
      refused(
        await submit("GenerateTrendRaster", {
          inputMultidimensionalRaster: navy,
          outputName: `t_${variables.length}`,
          dimension: "StdTime",
          variables,
        }),
        /variables/,
      );
    }
  });
});

describe("nothing private on the way", () => {
  it("search without a token, or with a bad one, lists nothing when anonymous access is off", async () => {
    const r1 = await server.call("/sharing/rest/search", { q: "" });
    assert.equal(r1.error?.code, 499, JSON.stringify(r1).slice(0, 200));
    const r2 = await server.call("/sharing/rest/search", { q: "" }, { token: "not-a-token" });
    assert.equal(r2.error?.code, 498, JSON.stringify(r2).slice(0, 200));
  });

  it("another user's folder: not browsable, its title nowhere", async () => {
    const r = await server.call(`/sharing/rest/content/users/bob/${bobFolder}`, {}, { token: ana });
    assert.ok([403, 404].includes(r.error?.code), JSON.stringify(r));
    assert.ok(!JSON.stringify(r).includes("bob secret plans"));
    const listing = await server.call("/sharing/rest/content/users/bob", {}, { token: ana });
    assert.ok(!JSON.stringify(listing).includes("bob secret plans"), JSON.stringify(listing));
    const input = await submit("SubsetMultidimensionalRaster", {
      inputMultidimensionalRaster: JSON.stringify({ folderId: bobFolder }),
      outputName: "from_bob",
    });
    refused(input, /inputMultidimensionalRaster/, "bob secret plans");
  });

  it("a token inside an input URL is not echoed in the job's inputs", async () => {
    const url = `${server.url}/rest/services/Hosted/navy_winds_10deg/ImageServer?token=${ana}`;
    const job = await submit("SubsetMultidimensionalRaster", {
      inputMultidimensionalRaster: JSON.stringify({ url }),
      outputName: "echo_test",
    });
    assert.ok(job.jobId, JSON.stringify(job));
    const inputs = await server.call(
      `${server.tools.replace(server.url, "")}/SubsetMultidimensionalRaster/jobs/${job.jobId}/inputs/inputMultidimensionalRaster`,
      {},
      { token: ana },
    );
    assert.ok(!JSON.stringify(inputs).includes(ana), JSON.stringify(inputs));
  });
});
