/**
 * Issue 10 §3/§4, the cases the first fixes left open: secrets that reached the log in forms
 * the redaction did not know (an input URL's token percent-encoded inside a GET submitJob, a
 * password holding characters encodeURIComponent leaves as they are, a percent-encoded
 * parameter name), credentials echoed by a job (a secret-named parameter, a message quoting a
 * URL), and a service name claimed by a publish and a job at once, each running to the end
 * before one of them failed.
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { get } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { resolveServeConfig } from "../../src/cli/serveConfig.js";
import { type RunningStrata, startStrata } from "../../src/cli/startStrata.js";
import { redactSecrets, redactUrl } from "../../src/http/logRedaction.js";
import { appendMessage, createJob, updateStatus } from "../../src/jobs/jobStore.js";
import { createUser } from "../../src/portal/users.js";
import { type TestServer, startTestServer, waitForJob } from "../helpers/server.js";

/** A GET with the URL's characters as given (no escaping by the client). */
function rawGet(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const path = url.slice(url.indexOf(u.pathname));
    get({ host: u.hostname, port: u.port, path }, (response) => {
      let body = "";
      response.on("data", (c: Buffer) => (body += c.toString()));
      response.on("end", () => resolve(body));
    }).on("error", reject);
  });
}

const NAVY = new URL("../../samples/navy_winds_10deg.nc", import.meta.url).pathname;
const SUBSET = "/rest/services/System/RasterAnalysisTools/GPServer/SubsetMultidimensionalRaster";

describe("the log, for secrets in the forms clients send them", () => {
  let strata: RunningStrata;
  let dataDir = "";
  let log = "";
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "strata-log2-"));
    const stream = new Writable({
      write(chunk, _encoding, done) {
        log += String(chunk);
        done();
      },
    });
    const config = resolveServeConfig({ port: "0", "data-dir": dataDir, workers: "1", "no-samples": true } as never, {});
    strata = await startStrata(config, { logger: { level: "info", stream } });
  });
  after(async () => {
    await strata.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("holds no password signed in with by GET, whatever characters it has", async () => {
    // Sent as curl sends them: ' , ! ( ) * raw in the query (fetch would escape the quote).
    const password = "pw,TAIL'SECRET!(x)*";
    await createUser(strata.db, { username: "quoted", password, role: "publisher" });
    const got = await rawGet(`${strata.url}/sharing/rest/generateToken?username=quoted&password=${password}&f=json`);
    assert.ok(JSON.parse(got).token, got);
    await new Promise((r) => setTimeout(r, 100));
    assert.match(log, /generateToken/);
    for (const part of ["TAIL", "SECRET"]) assert.ok(!log.includes(part), "no part of the password in the log");
  });

  it("holds no token of an input URL sent percent-encoded in a GET submitJob, nor a token under an encoded name", async () => {
    const admin = await (
      await fetch(
        `${strata.url}/sharing/rest/generateToken?${new URLSearchParams({ username: "admin", password: strata.adminPassword!, f: "json" })}`,
      )
    ).json();
    const inner = "INNERSECRET0123456789";
    const query = new URLSearchParams({
      f: "json",
      token: admin.token,
      inputMultidimensionalRaster: JSON.stringify({ url: `https://elsewhere.example/x/ImageServer?f=json&token=${inner}` }),
      outputName: "x",
    });
    await fetch(`${strata.url}${SUBSET}/submitJob?${query}`);
    // The server decodes parameter names: %74oken is token.
    await fetch(`${strata.url}/rest/info?f=json&%74oken=${admin.token}`);
    await new Promise((r) => setTimeout(r, 100));
    assert.match(log, /submitJob/);
    assert.ok(!log.includes(inner), "no input URL token in the log");
    assert.ok(!log.includes(admin.token), "no token in the log");
  });

  it("redacts each level of a URL at its own separators (hand-worked)", () => {
    assert.equal(redactUrl("/g?username=a&password=p+q%2Cr%27%22s%7D&f=1"), "/g?username=a&password=[redacted]&f=1");
    assert.equal(redactUrl('/g?password=ab"cd<e>f&f=1'), "/g?password=[redacted]&f=1");
    assert.equal(redactUrl("/x?%74oken=a&Token=b&f=json"), "/x?%74oken=[redacted]&Token=[redacted]&f=json");
    assert.equal(
      redactUrl("/s?in=%7B%22url%22%3A%22https%3A%2F%2Fh%2Fx%3Ff%3Djson%26token%3DSEC%22%7D&f=json"),
      "/s?in=%7B%22url%22%3A%22https%3A%2F%2Fh%2Fx%3Ff%3Djson%26token%3D[redacted]%22%7D&f=json",
    );
    assert.equal(
      redactSecrets("a=https%253A%252F%252Fh%253Ftoken%253DSEC%2526b%253D1"),
      "a=https%253A%252F%252Fh%253Ftoken%253D[redacted]%2526b%253D1",
    );
    assert.equal(redactSecrets(`password=it's!(x)*`), "password=[redacted]");
    assert.equal(redactSecrets('{"password":"ab\\"cd","x":1}'), '{"password":"[redacted]","x":1}');
    assert.equal(redactSecrets("passwords=1 mytoken=2 token_x=3"), "passwords=1 mytoken=2 token_x=3");
  });
});

describe("a job echoes no credential", () => {
  let server: TestServer;
  let ana = "";
  before(async () => {
    server = await startTestServer({});
    await server.addUser("ana", "publisher", "ana-password-1");
    ana = await server.token("ana", "ana-password-1");
  });
  after(() => server.close());

  it("not a parameter named like one, nor a URL with a token in its messages", async () => {
    const job = await server.call(
      `${SUBSET}/submitJob`,
      {
        inputMultidimensionalRaster: JSON.stringify({ url: `${server.url}/rest/services/Hosted/navy_winds_10deg/ImageServer` }),
        outputName: "echo_free",
        access_token: "ACCESSSECRET",
        client_secret: "CLIENTSECRET",
      },
      { token: ana },
    );
    assert.ok(job.jobId, JSON.stringify(job));
    // What a remote store's refusal may say, quoting the URL the job was given.
    await appendMessage(server.strata.db, job.jobId, {
      type: "esriJobMessageTypeWarning",
      description: "could not read https://zarr.example/cube.zarr?token=MESSAGESECRET: HTTP 403",
    });
    const inputs = JSON.stringify(await server.call(`${SUBSET}/jobs/${job.jobId}/inputs`, {}, { token: ana }));
    const status = JSON.stringify(await server.call(`${SUBSET}/jobs/${job.jobId}`, {}, { token: ana }));
    for (const secret of ["ACCESSSECRET", "CLIENTSECRET"]) assert.ok(!inputs.includes(secret), inputs);
    assert.ok(!status.includes("MESSAGESECRET"), status);
    assert.match(status, /could not read https:\/\/zarr\.example/);
    await waitForJob(server, "SubsetMultidimensionalRaster", job.jobId, ana);
  });
});

describe("a new service name is held by whoever claimed it first", () => {
  let server: TestServer;
  let ana = "";
  let itemId = "";
  const navyInput = () => JSON.stringify({ url: `${server.url}/rest/services/Hosted/navy_winds_10deg/ImageServer` });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers
  const publish = async (name: string): Promise<any> => {
    const form = new FormData();
    for (const [k, v] of Object.entries({ f: "json", token: ana, itemId, publishParameters: JSON.stringify({ name }) })) form.set(k, v);
    return (await fetch(`${server.url}/sharing/rest/content/users/ana/publish`, { method: "POST", body: form })).json();
  };
  const submit = (name: string) =>
    server.call(`${SUBSET}/submitJob`, { inputMultidimensionalRaster: navyInput(), outputName: name }, { token: ana });

  before(async () => {
    server = await startTestServer({});
    await server.addUser("ana", "publisher", "ana-password-1");
    ana = await server.token("ana", "ana-password-1");
    const form = new FormData();
    for (const [k, v] of Object.entries({ f: "json", token: ana, filename: "navy.nc", title: "navy upload" })) form.set(k, v);
    form.set("file", new Blob([await readFile(NAVY)]));
    const added = await (await fetch(`${server.url}/sharing/rest/content/users/ana/addItem`, { method: "POST", body: form })).json();
    assert.ok(added.id, JSON.stringify(added));
    itemId = added.id;
  });
  after(() => server.close());

  it("a publish is refused a name a job not yet finished will create, and gets it once the job has ended", async () => {
    // A job record that stays unfinished for as long as the test needs (no executor runs it).
    const held = await createJob(server.strata.db, {
      task: "SubsetMultidimensionalRaster",
      owner: "ana",
      inputs: {},
      options: { output: { kind: "create", serviceName: "held_by_job", itemProperties: {} } },
    });
    const refused = await publish("HELD_by_job");
    assert.equal(refused.error?.code, 400, JSON.stringify(refused));
    assert.match(refused.error.details.join(" "), /publishParameters.*held_by_job.*job that has not finished/i);
    await updateStatus(server.strata.db, held.id, "esriJobCancelling");
    await updateStatus(server.strata.db, held.id, "esriJobCancelled");
    const published = await publish("held_by_job");
    assert.match(published.services?.[0]?.serviceurl ?? "", /held_by_job/, JSON.stringify(published));
  });

  it("of a publish and a job submitted while it converts, one is accepted and the other refused now", async () => {
    const [published, submitted] = await Promise.all([
      publish("raced_name"),
      new Promise((r) => setTimeout(r, 20)).then(() => submit("raced_name")),
    ]);
    const accepted = [published.services?.[0]?.serviceurl, submitted.jobId].filter(Boolean);
    assert.equal(accepted.length, 1, JSON.stringify([published, submitted]));
    const loser = published.services ? submitted : published;
    assert.equal(loser.error?.code, 400, JSON.stringify(loser));
    assert.match(loser.error.details.join(" "), /(outputName|publishParameters).*raced_name/);
    if (submitted.jobId) {
      assert.equal((await waitForJob(server, "SubsetMultidimensionalRaster", submitted.jobId, ana)).jobStatus, "esriJobSucceeded");
    }
  });

  it("a job's name is free again once it ended without creating it (cancelled)", async () => {
    const first = await submit("freed_name");
    assert.ok(first.jobId, JSON.stringify(first));
    const second = await submit("freed_name");
    assert.equal(second.error?.code, 400, JSON.stringify(second));
    assert.match(second.error.details.join(" "), /outputName.*freed_name/);
    await server.call(`${SUBSET}/jobs/${first.jobId}/cancel`, {}, { token: ana });
    const ended = await waitForJob(server, "SubsetMultidimensionalRaster", first.jobId, ana);
    if (ended.jobStatus === "esriJobSucceeded") return; // it finished before the cancel: the service holds the name
    const third = await submit("freed_name");
    assert.ok(third.jobId, JSON.stringify(third));
    assert.equal((await waitForJob(server, "SubsetMultidimensionalRaster", third.jobId, ana)).jobStatus, "esriJobSucceeded");
  });
});
