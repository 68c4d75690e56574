/**
 * Secrets never reach a log (issue 10 §3): tokens, passwords and Authorization headers are
 * replaced wherever the server logs a request, a refusal or a message. Query strings and
 * free text are both scrubbed, since clients send `token=` in URLs (GET exportImage),
 * `password=` to generateToken by GET, and input URLs with their own `token=` inside a
 * percent-encoded task parameter (GET submitJob).
 */
import type { FastifyRequest } from "fastify";

const SECRET_NAMES = [
  "token",
  "password",
  "client_secret",
  "refresh_token",
  "access_token",
  "authorization",
  "x-esri-authorization",
  "api_key",
  "apikey",
];
const REDACTED = "[redacted]";

/** A name as it may appear in a URL: each character literal or percent-encoded (`%74oken`). */
function nameInUrl(name: string): string {
  return [...name]
    .map((c) => {
      const hex = (ch: string) => ch.charCodeAt(0).toString(16);
      const escaped = /[a-z]/.test(c) ? `${c}|%${hex(c)}|%${hex(c.toUpperCase())}` : `\\${c}|%${hex(c)}`;
      return `(?:${escaped})`;
    })
    .join("");
}
const NAMES = SECRET_NAMES.map(nameInUrl).join("|");
/**
 * name=value in a sentence, a form body or a URL, also percent-encoded inside another
 * parameter (`%3Ftoken%3D...`, once or twice). The name starts after a non-word character or
 * an escape; the value ends where its own level's separator is: a raw `&`, whitespace, a quote
 * or `#` for `=`, their escapes for `%3D`, the escapes of escapes for `%253D`. So `'`, `!`,
 * `(` and `,`, which encodeURIComponent leaves as they are, stay inside the value.
 */
const PAIR_START = `(?<=^|[^A-Za-z0-9_]|%(?:25)?[0-9A-Fa-f]{2})(${NAMES})`;
const SECRET_PAIRS = [
  new RegExp(`${PAIR_START}(=)([^&\\s"#<>]*)`, "gi"),
  new RegExp(`${PAIR_START}(%3D)((?:(?!%2[236])[^&\\s"#<>])*)`, "gi"),
  new RegExp(`${PAIR_START}(%253D)((?:(?!%252[236])[^&\\s"#<>])*)`, "gi"),
];
/** "name": "value" in JSON text, escaped quotes included. */
const SECRET_FIELD = new RegExp(`("(?:${SECRET_NAMES.join("|")})"\\s*:\\s*")((?:[^"\\\\]|\\\\.)*)"`, "gi");
/** The credentials of an Authorization header or a URL's user:password@. */
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;
const URL_CREDENTIALS = /(\/\/[^/\s:@]+:)[^@\s/]+@/g;

/**
 * @example
 * redactSecrets("/rest/info?f=json&token=abc"); // "/rest/info?f=json&token=[redacted]"
 */
export function redactSecrets(text: string): string {
  let out = text.replace(SECRET_FIELD, `$1${REDACTED}"`);
  for (const pair of SECRET_PAIRS) out = out.replace(pair, (_, name: string, eq: string) => `${name}${eq}${REDACTED}`);
  return out.replace(BEARER, (_, scheme: string) => `${scheme} ${REDACTED}`).replace(URL_CREDENTIALS, `$1${REDACTED}@`);
}

/**
 * A request URL with the value of every secret query parameter replaced whole: the name as
 * the server decodes it (`%74oken`, `Token`), the value up to the next `&` whatever it holds;
 * other values are scrubbed as text (an input URL with its own token inside).
 * @example
 * redactUrl("/generateToken?username=a&password=it's%26me"); // "...&password=[redacted]"
 */
export function redactUrl(url: string): string {
  const q = url.indexOf("?");
  if (q < 0) return redactSecrets(url);
  const query = url
    .slice(q + 1)
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return isSecretName(name) ? `${name}=${REDACTED}` : redactSecrets(pair);
    });
  return `${redactSecrets(url.slice(0, q))}?${query.join("&")}`;
}

function decodedName(name: string): string {
  const spaced = name.replace(/\+/g, " ");
  try {
    return decodeURIComponent(spaced).trim().toLowerCase();
  } catch {
    return spaced.trim().toLowerCase();
  }
}

/**
 * Whether a parameter or field of this name holds a credential.
 * @example
 * isSecretName("Token"); // true
 */
export function isSecretName(name: string): boolean {
  return SECRET_NAMES.includes(decodedName(name));
}

/** Any logged value with its secrets redacted (strings scrubbed, objects walked). */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactSecrets(value);
  if (depth > 4 || value === null || typeof value !== "object") return value;
  if (value instanceof Error)
    return { type: value.name, message: redactSecrets(value.message), stack: value.stack && redactSecrets(value.stack) };
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, isSecretName(k) ? REDACTED : redactValue(v, depth + 1)]));
}

/**
 * Fastify logger options with every request logged without its secrets.
 * @example
 * Fastify({ logger: redactingLogger({ level: "info" }) });
 */
export function redactingLogger(options: object): object {
  return {
    ...options,
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: redactUrl(request.url),
        host: request.host,
        remoteAddress: request.ip,
      }),
      err: (error: unknown) => redactValue(error),
    },
    // Anything else a handler logs that names a secret field.
    redact: {
      paths: ["*.token", "*.password", "*.headers.authorization", "headers.authorization", '*.headers["x-esri-authorization"]'],
      censor: REDACTED,
    },
  };
}
