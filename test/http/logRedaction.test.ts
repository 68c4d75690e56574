/**
 * Secrets in the log (issue 10 §3): a token in a query string, a password sent to
 * generateToken by GET or POST, an Authorization header and a token inside a refused
 * parameter never appear in what the server logs; the requests themselves are still logged.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { resolveServeConfig } from "../../src/cli/serveConfig.js";
import { startStrata } from "../../src/cli/startStrata.js";
import { redactSecrets } from "../../src/http/logRedaction.js";

describe("the server's log", () => {
  it("holds no token, password or Authorization value", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "strata-log-"));
    let log = "";
    const stream = new Writable({
      write(chunk, _encoding, done) {
        log += String(chunk);
        done();
      },
    });
    const config = resolveServeConfig({ port: "0", "data-dir": dataDir, workers: "1", "no-samples": true } as never, {});
    const strata = await startStrata(config, { logger: { level: "info", stream } });
    try {
      const password = strata.adminPassword!;
      const base = strata.url;
      const got = (await (
        await fetch(`${base}/sharing/rest/generateToken?username=admin&password=${encodeURIComponent(password)}&f=json`)
      ).json()) as {
        token: string;
      };
      assert.ok(got.token, "signed in by GET");
      await fetch(`${base}/sharing/rest/generateToken`, {
        method: "POST",
        body: new URLSearchParams({ username: "admin", password, f: "json" }),
      });
      await fetch(`${base}/rest/info?f=json&token=${got.token}`);
      await fetch(`${base}/sharing/rest/portals/self?f=json`, { headers: { authorization: `Bearer ${got.token}` } });
      // A refused parameter that carries a token in a URL is logged as refused, without it.
      await fetch(`${base}/rest/services/System/RasterAnalysisTools/GPServer/SubsetMultidimensionalRaster/submitJob`, {
        method: "POST",
        body: new URLSearchParams({
          f: "json",
          token: got.token,
          inputMultidimensionalRaster: JSON.stringify({ url: `https://elsewhere.example/x/ImageServer?token=${got.token}` }),
          outputName: "x",
        }),
      });
      await new Promise((r) => setTimeout(r, 200));
      assert.match(log, /generateToken/, "requests are logged");
      assert.match(log, /rest\/info/);
      assert.ok(!log.includes(got.token), "no token in the log");
      assert.ok(!log.includes(password), "no password in the log");
      assert.ok(!log.includes(encodeURIComponent(password)), "no encoded password in the log");
    } finally {
      await strata.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it("redacts query parameters, JSON fields, bearer credentials and URL passwords (hand-worked)", () => {
    assert.equal(redactSecrets("/x?f=json&token=abc.def&b=1"), "/x?f=json&token=[redacted]&b=1");
    assert.equal(redactSecrets("/x?PASSWORD=p%40ss"), "/x?PASSWORD=[redacted]");
    assert.equal(redactSecrets('{"token": "abc", "a": 1}'), '{"token": "[redacted]", "a": 1}');
    assert.equal(redactSecrets("Authorization: Bearer abc.def"), "Authorization: Bearer [redacted]");
    assert.equal(redactSecrets("s3://user:secret@host/b"), "s3://user:[redacted]@host/b");
  });
});
