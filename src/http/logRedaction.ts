/**
 * Secrets never reach a log (issue 10 §3): tokens, passwords and Authorization headers are
 * replaced wherever the server logs a request, a refusal or a message. Query strings and
 * free text are both scrubbed, since clients send `token=` in URLs (GET exportImage) and
 * `password=` to generateToken by GET.
 */
import type { FastifyRequest } from "fastify";

const SECRET_NAMES = ["token", "password", "client_secret", "refresh_token", "access_token", "authorization", "api_key", "apikey"];
const REDACTED = "[redacted]";
/** name=value in a query string, a form body or a sentence; the value ends at &, space, quote or ". */
const SECRET_PAIR = new RegExp(`\\b(${SECRET_NAMES.join("|")})(=|%3D|"\\s*:\\s*")([^&\\s"'#,}]*)`, "gi");
/** The credentials of an Authorization header or a URL's user:password@. */
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g;
const URL_CREDENTIALS = /(\/\/[^/\s:@]+:)[^@\s/]+@/g;

/**
 * @example
 * redactSecrets("/rest/info?f=json&token=abc"); // "/rest/info?f=json&token=[redacted]"
 */
export function redactSecrets(text: string): string {
  return text
    .replace(SECRET_PAIR, (_, name: string, eq: string) => `${name}${eq}${REDACTED}`)
    .replace(BEARER, (_, scheme: string) => `${scheme} ${REDACTED}`)
    .replace(URL_CREDENTIALS, `$1${REDACTED}@`);
}

/** Any logged value with its secrets redacted (strings scrubbed, objects walked). */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactSecrets(value);
  if (depth > 4 || value === null || typeof value !== "object") return value;
  if (value instanceof Error)
    return { type: value.name, message: redactSecrets(value.message), stack: value.stack && redactSecrets(value.stack) };
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, SECRET_NAMES.includes(k.toLowerCase()) ? REDACTED : redactValue(v, depth + 1)]),
  );
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
        url: redactSecrets(request.url),
        host: request.host,
        remoteAddress: request.ip,
      }),
      err: (error: unknown) => redactValue(error),
    },
    // Anything else a handler logs that names a secret field.
    redact: { paths: ["*.token", "*.password", "*.headers.authorization", "headers.authorization"], censor: REDACTED },
  };
}
