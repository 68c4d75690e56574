/**
 * HTML views of resources, laid out as the ArcGIS REST services directory draws them:
 * breadcrumbs, a title, label/value rows, links, the JSON at the end, and forms where a
 * resource takes input (a task's submit form, generateToken). Everything is escaped.
 */
import type { FastifyRequest } from "fastify";
import { basePathOf, sessionCookie } from "./directorySession.js";
import type { ErrorBody } from "./errors.js";

export interface HtmlRow {
  readonly label: string;
  readonly value?: string | number | boolean | null;
  readonly href?: string;
  /** Values that are lists of links. */
  readonly links?: readonly { readonly text: string; readonly href: string }[];
}

export interface HtmlForm {
  readonly action: string;
  readonly method: "GET" | "POST";
  readonly fields: readonly {
    readonly name: string;
    readonly label: string;
    readonly value?: string;
    readonly help?: string;
    readonly choices?: readonly string[];
    readonly required?: boolean;
    readonly multiline?: boolean;
    readonly password?: boolean;
  }[];
  readonly submit: string;
}

export interface HtmlPage {
  readonly title: string;
  readonly breadcrumbs?: readonly { readonly text: string; readonly href: string }[];
  readonly rows?: readonly HtmlRow[];
  readonly form?: HtmlForm;
  /** Shown at the end, as the services directory shows the resource's JSON. */
  readonly json?: unknown;
}

export function escapeHtml(text: unknown): string {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

const STYLE = `body{font-family:system-ui,sans-serif;margin:0;color:#222}header{background:#1a3a5c;color:#fff;padding:.6em 1em}
header a{color:#fff}header span{float:right}main{padding:1em;max-width:70em}nav{font-size:.9em;margin-bottom:1em}table{border-collapse:collapse}
td{padding:.2em .8em .2em 0;vertical-align:top}td:first-child{font-weight:600;white-space:nowrap}pre{background:#f4f4f4;padding:.8em;overflow:auto}
label{display:block;font-weight:600;margin-top:.6em}input,select,textarea{width:100%;max-width:40em;font:inherit}small{color:#555}
.error{border-left:4px solid #b00;padding:.4em .8em;background:#fee}`;

export function renderPage(page: HtmlPage, request: FastifyRequest): string {
  const crumbs = (page.breadcrumbs ?? []).map((b) => `<a href="${escapeHtml(b.href)}">${escapeHtml(b.text)}</a>`).join(" &gt; ");
  const rows = (page.rows ?? []).map(renderRow).join("\n");
  const jsonHref = withFormat(request.url, "pjson");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title><style>${STYLE}</style></head><body>
<header><strong>Strata REST Services Directory</strong>${signInLink(request)}</header><main>
${crumbs ? `<nav aria-label="breadcrumbs">${crumbs}</nav>` : ""}
<h1>${escapeHtml(page.title)}</h1>
<p><a href="${escapeHtml(jsonHref)}">JSON</a></p>
${rows ? `<table>${rows}</table>` : ""}
${page.form ? renderForm(page.form) : ""}
${page.json !== undefined ? `<h2>JSON</h2><pre>${escapeHtml(JSON.stringify(page.json, null, 2))}</pre>` : ""}
</main></body></html>`;
}

/** Top right of every page: sign in (back to this page), or who may sign out. */
function signInLink(request: FastifyRequest): string {
  const base = basePathOf(request.url);
  if (sessionCookie(request)) return `<span><a href="${escapeHtml(`${base}/rest/logout`)}">Sign out</a></span>`;
  return `<span><a href="${escapeHtml(signInHref(request))}">Sign in</a></span>`;
}

/** The sign-in page, coming back to the page asked for. */
export function signInHref(request: FastifyRequest): string {
  const u = new URL(request.url, "http://x");
  for (const name of [...u.searchParams.keys()]) if (name.toLowerCase() === "token") u.searchParams.delete(name);
  u.searchParams.set("f", "html");
  const back = `${u.pathname}${u.search}`;
  return `${basePathOf(request.url)}/rest/login?redirect=${encodeURIComponent(back)}`;
}

export function errorPage(error: ErrorBody, request: FastifyRequest): string {
  const signIn =
    error.code === 498 || error.code === 499 ? [{ label: "Sign in", value: "Sign in to see this page", href: signInHref(request) }] : [];
  return renderPage(
    {
      title: `Error ${error.code}`,
      rows: [{ label: "Message", value: error.message }, ...error.details.map((d) => ({ label: "Detail", value: d })), ...signIn],
    },
    request,
  ).replace("<table>", '<table class="error" role="alert">');
}

function renderRow(row: HtmlRow): string {
  let value: string;
  if (row.links) value = row.links.map((l) => `<a href="${escapeHtml(l.href)}">${escapeHtml(l.text)}</a>`).join("<br>");
  else if (row.href) value = `<a href="${escapeHtml(row.href)}">${escapeHtml(row.value ?? row.href)}</a>`;
  else value = escapeHtml(row.value ?? "");
  return `<tr><td>${escapeHtml(row.label)}</td><td>${value}</td></tr>`;
}

function renderForm(form: HtmlForm): string {
  const fields = form.fields
    .map((f) => {
      const id = `f_${f.name}`;
      const help = f.help ? `<small id="${id}_help">${escapeHtml(f.help)}</small>` : "";
      const describedBy = f.help ? ` aria-describedby="${id}_help"` : "";
      const req = f.required ? " required" : "";
      const control = f.choices
        ? `<select id="${id}" name="${escapeHtml(f.name)}"${describedBy}>${["", ...f.choices]
            .map((c) => `<option${c === (f.value ?? "") ? " selected" : ""}>${escapeHtml(c)}</option>`)
            .join("")}</select>`
        : f.multiline
          ? `<textarea id="${id}" name="${escapeHtml(f.name)}" rows="3"${describedBy}${req}>${escapeHtml(f.value ?? "")}</textarea>`
          : `<input id="${id}" name="${escapeHtml(f.name)}" type="${f.password ? "password" : "text"}" value="${escapeHtml(f.value ?? "")}"${describedBy}${req}>`;
      return `<label for="${id}">${escapeHtml(f.label)}${f.required ? " (required)" : ""}</label>${control}${help}`;
    })
    .join("\n");
  return `<form action="${escapeHtml(form.action)}" method="${form.method}">${fields}
<label for="f_format">Format</label><select id="f_format" name="f"><option>html</option><option>json</option><option>pjson</option></select>
<p><button type="submit">${escapeHtml(form.submit)}</button></p></form>`;
}

/** The same URL with f set to the given format. */
export function withFormat(url: string, f: string): string {
  const u = new URL(url, "http://x");
  u.searchParams.set("f", f);
  return `${u.pathname}${u.search}`;
}
