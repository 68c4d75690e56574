/**
 * The one place the app talks HTTP: form-encoded GET/POST with f=json and the token, the
 * ArcGIS error envelope (HTTP 200 with {error}) turned into an ApiError.
 */
import type { ErrorEnvelope } from "./types.js";

/** An ArcGIS REST error: code (400, 403, 404, 498, 499, 500), message and details. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly details: readonly string[],
  ) {
    super(details.length ? `${message} ${details.join(" ")}` : message);
  }
}

export type Params = Readonly<Record<string, string | number | boolean | undefined>>;

/** The REST base (e.g. http://127.0.0.1:8080/arcgis): the app is served at <base>/ (or <base>/index.html). */
export function restBase(location: Pick<Location, "origin" | "pathname">): string {
  return location.origin + location.pathname.replace(/\/index\.html$/, "").replace(/\/+$/, "");
}

const isErrorEnvelope = (body: unknown): body is ErrorEnvelope =>
  typeof body === "object" && body !== null && "error" in body && typeof (body as ErrorEnvelope).error === "object";

export class RestClient {
  /**
   * @param getToken the current token, if signed in
   * @param onTokenRejected called when the server says the token is invalid or missing (498/499)
   */
  constructor(
    readonly base: string,
    private readonly getToken: () => string | undefined,
    private readonly onTokenRejected: () => void = () => undefined,
  ) {}

  /**
   * The form body of a request: the params, f=json unless `f` is given, and the token unless
   * `token` is given (`token: undefined` sends none).
   */
  body(params: Params = {}): URLSearchParams {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined) body.set(k, String(v));
    if (!body.has("f")) body.set("f", "json");
    const token = this.getToken();
    if (token && !("token" in params)) body.set("token", token);
    return body;
  }

  /** A URL with the params and token in its query (for <img> and links). */
  url(url: string, params: Params = {}): string {
    const body = this.body(params);
    return `${url}${url.includes("?") ? "&" : "?"}${body}`;
  }

  get<T>(url: string, params?: Params, signal?: AbortSignal): Promise<T> {
    return this.read<T>(fetch(this.url(url, params), { signal }));
  }

  post<T>(url: string, params?: Params, signal?: AbortSignal): Promise<T> {
    return this.read<T>(fetch(url, { method: "POST", body: this.body(params), signal }));
  }

  /** Parse an answer; ArcGIS errors come back as HTTP 200 with an {error} body. */
  async read<T>(pending: Promise<Response>): Promise<T> {
    const response = await pending;
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new ApiError(`The server answered HTTP ${response.status} with no JSON.`, response.status, []);
    }
    if (isErrorEnvelope(body)) {
      const { code, message, details = [] } = body.error;
      if (code === 498 || code === 499) this.onTokenRejected();
      throw new ApiError(message, code, details);
    }
    if (!response.ok) throw new ApiError(`HTTP ${response.status}`, response.status, []);
    return body as T;
  }
}
