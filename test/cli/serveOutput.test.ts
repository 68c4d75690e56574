/**
 * What `strata serve` prints for a person (issue 15): the first admin password in a frame
 * with a command that works from a clone, and one readable line per request on a terminal
 * (JSON otherwise, or with --log-format json).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { formatLine, textLogStream } from "../../src/cli/requestLog.js";
import { framed, handOver, passwdCommand } from "../../src/cli/serve.js";
import { resolveServeConfig } from "../../src/cli/serveConfig.js";
import { strata } from "../helpers/cli.js";

describe("the first admin password on a terminal", () => {
  it("stands in a frame with the URL and a passwd command that runs from the clone", async () => {
    const dir = await mkdtemp(join(tmpdir(), "strata-frame-"));
    try {
      const text = await handOver("FramedPassword123", dir, true, "http://127.0.0.1:8080/arcgis");
      const lines = text.trim().split("\n");
      assert.match(lines[0], /^╔═+╗$/);
      assert.match(lines.at(-1)!, /^╚═+╝$/);
      assert.ok(
        lines.every((l) => [...l].length === [...lines[0]].length),
        "every line of the frame has the same width",
      );
      assert.ok(lines.some((l) => l.includes("FramedPassword123")));
      assert.ok(text.includes("http://127.0.0.1:8080/arcgis/"));
      assert.ok(text.includes(`npx strata user passwd admin --data-dir ${dir}`), text);
      assert.ok(!/(^|[^x] )strata user passwd/.test(text), "never the bare `strata`, which is not on the PATH of a clone");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("names the data directory only when it is not the default", () => {
    assert.equal(passwdCommand("./data"), "STRATA_PASSWORD='<new password>' npx strata user passwd admin");
    assert.equal(passwdCommand("/srv/my data"), "STRATA_PASSWORD='<new password>' npx strata user passwd admin --data-dir '/srv/my data'");
  });

  it("the frame fits its longest line", () => {
    assert.equal(framed(["ab", "abcd"]), "╔════════╗\n║  ab    ║\n║  abcd  ║\n╚════════╝");
  });
});

describe("the request log", () => {
  const line = (o: object) => JSON.stringify({ level: 30, time: Date.UTC(2026, 0, 2, 3, 4, 5), pid: 1, hostname: "h", ...o });

  it("is one line per request on a terminal, with why a request was refused", () => {
    const pending = new Map();
    assert.equal(
      formatLine(
        line({ reqId: "r1", req: { method: "GET", url: "/arcgis/rest/info?token=[redacted]" }, msg: "incoming request" }),
        pending,
      ),
      undefined,
    );
    assert.equal(formatLine(line({ reqId: "r1", code: 499, message: "Token Required", msg: "request refused" }), pending), undefined);
    const text = formatLine(line({ reqId: "r1", res: { statusCode: 200 }, responseTime: 1.234, msg: "request completed" }), pending)!;
    assert.match(text, /^\d\d:\d\d:05 200 GET \/arcgis\/rest\/info\?token=\[redacted\] {2}1\.2 ms {2}\[499 Token Required\]$/);
    assert.equal(pending.size, 0, "a finished request is forgotten");
  });

  it("shows other lines as time, level and message, and what is not JSON as it is", () => {
    assert.match(formatLine(line({ level: 40, msg: "slow disk", path: "x" }))!, /^\d\d:\d\d:05 WARN slow disk {2}path=x$/);
    assert.equal(formatLine("not json"), "not json");
  });

  it("the stream joins lines split across writes", async () => {
    const out: string[] = [];
    const stream = textLogStream((l) => out.push(l));
    const text = line({ msg: "Server listening at http://127.0.0.1:1" }) + "\n";
    await new Promise<void>((resolve) => stream.write(text.slice(0, 20), () => resolve()));
    await new Promise<void>((resolve) => stream.write(text.slice(20), () => resolve()));
    assert.equal(out.length, 1);
    assert.match(out[0], /INFO Server listening at http:\/\/127\.0\.0\.1:1\n$/);
  });

  it("--log-format takes text or json (STRATA_LOG_FORMAT too); absent, the terminal decides", async () => {
    assert.equal(resolveServeConfig({ "log-format": "json" }, {}).logFormat, "json");
    assert.equal(resolveServeConfig({}, { STRATA_LOG_FORMAT: "text" }).logFormat, "text");
    assert.equal(resolveServeConfig({}, {}).logFormat, undefined);
    const bad = await strata("serve", "--log-format", "xml");
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--log-format must be text or json/);
    assert.match((await strata("serve", "--help")).stdout, /--log-format/);
  });

  it("--image-encoder takes sharp (the default) or js (STRATA_IMAGE_ENCODER too)", () => {
    assert.equal(resolveServeConfig({}, {}).imageEncoder, "sharp");
    assert.equal(resolveServeConfig({ "image-encoder": "js" }, {}).imageEncoder, "js");
    assert.equal(resolveServeConfig({}, { STRATA_IMAGE_ENCODER: "js" }).imageEncoder, "js");
    assert.throws(() => resolveServeConfig({ "image-encoder": "libpng" }, {}), /--image-encoder must be sharp or js; got "libpng"/);
  });
});
