/**
 * The server's log as a person reads it on a terminal: one line per request (time, status,
 * method, URL, duration, and why it was refused if it was), other lines as time, level and
 * message. The server logs JSON (pino) either way; this stream rewrites each JSON line, so
 * what is logged and redacted (logRedaction.ts) is the same in both formats.
 */
import { Writable } from "node:stream";

/** `text` on a terminal, `json` otherwise or when asked (--log-format). */
export type LogFormat = "text" | "json";

const LEVELS: Readonly<Record<number, string>> = { 10: "TRACE", 20: "DEBUG", 30: "INFO", 40: "WARN", 50: "ERROR", 60: "FATAL" };
/** Requests started and not finished that are remembered (a client that never finishes must not grow this forever). */
const PENDING_MAX = 10_000;

interface Pending {
  method: string;
  url: string;
  refused?: string;
}

/**
 * A destination for pino that writes readable lines to `write`.
 * @example
 * Fastify({ logger: { level: "info", stream: textLogStream((line) => process.stdout.write(line)) } });
 */
export function textLogStream(write: (line: string) => void): Writable {
  const pending = new Map<string, Pending>();
  let rest = "";
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      const lines = (rest + chunk.toString()).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) {
        if (!line.trim()) continue;
        const text = formatLine(line, pending);
        if (text !== undefined) write(`${text}\n`);
      }
      done();
    },
  });
}

/** One JSON log line as text; undefined when it waits to be merged into its request's line. */
export function formatLine(line: string, pending: Map<string, Pending> = new Map()): string | undefined {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const reqId = typeof entry.reqId === "string" ? entry.reqId : undefined;
  const req = entry.req as { method?: string; url?: string } | undefined;
  const res = entry.res as { statusCode?: number } | undefined;
  if (reqId && entry.msg === "incoming request" && req) {
    if (pending.size >= PENDING_MAX) pending.delete(pending.keys().next().value!);
    pending.set(reqId, { method: String(req.method ?? ""), url: String(req.url ?? "") });
    return undefined;
  }
  const request = reqId ? pending.get(reqId) : undefined;
  if (request && entry.msg === "request refused") {
    request.refused = [entry.code, entry.message].filter((v) => v !== undefined && v !== "").join(" ");
    return undefined;
  }
  const time = clock(entry.time);
  if (reqId && entry.msg === "request completed" && res) {
    pending.delete(reqId);
    const ms = typeof entry.responseTime === "number" ? `${entry.responseTime.toFixed(entry.responseTime < 10 ? 1 : 0)} ms` : "";
    const what = request ? `${request.method} ${request.url}` : "(request)";
    const refused = request?.refused ? `  [${request.refused}]` : "";
    return `${time} ${String(res.statusCode ?? "").padStart(3)} ${what}  ${ms}${refused}`;
  }
  const level = LEVELS[entry.level as number] ?? String(entry.level ?? "");
  const extra = Object.entries(entry)
    .filter(([k]) => !["level", "time", "pid", "hostname", "msg", "reqId", "req", "res", "responseTime"].includes(k))
    .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`);
  const on = request ? ` (${request.method} ${request.url})` : "";
  return `${time} ${level} ${String(entry.msg ?? "")}${on}${extra.length ? `  ${extra.join(" ")}` : ""}`;
}

function clock(time: unknown): string {
  const d = typeof time === "number" ? new Date(time) : new Date();
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}
