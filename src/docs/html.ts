/**
 * The catalog as one HTML page: inline CSS, no script, no external asset (a Content-Security-Policy says so
 * to the browser), readable without JavaScript. Every text from a schema goes through `escape`.
 */
import { counts, type Catalog, type Hint, type ResourceDoc, type Row, type ToolDoc } from "./model.js";

export function escape(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** An id for an anchor: the kind and the name, with anything but `[A-Za-z0-9_.-]` written as `~hex~`. */
function anchor(kind: string, name: string): string {
  return `${kind}-${name.replace(/[^A-Za-z0-9_.-]/g, (c) => `~${c.codePointAt(0)!.toString(16)}~`)}`;
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1f2328; --bg: #fff; --muted: #59636e; --line: #d1d9e0; --code: #f6f8fa; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; --line: #3d444d; --code: #151b23; } }
body { font: 15px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); margin: 0; }
header, main, nav { max-width: 72rem; margin: 0 auto; padding: 0 1.5rem; }
header { padding-top: 1.5rem; }
code, pre { font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; background: var(--code); border-radius: 4px; }
code { padding: 0.1em 0.3em; overflow-wrap: anywhere; }
pre { padding: 0.75rem; overflow-x: auto; white-space: pre-wrap; }
pre code { padding: 0; background: none; }
.meta, .muted { color: var(--muted); }
nav ul { columns: 3 14rem; padding-left: 1.2rem; }
article { border-top: 1px solid var(--line); padding: 0.5rem 0 1rem; }
h3 .title { font-weight: normal; color: var(--muted); }
.badges { display: flex; flex-wrap: wrap; gap: 0.4rem; margin: 0.25rem 0 0.5rem; }
.badge { font-size: 12px; padding: 0.1rem 0.55rem; border-radius: 1rem; border: 1px solid var(--line); }
.badge[data-value="true"][data-hint="readOnlyHint"] { background: #dafbe1; color: #116329; }
.badge[data-value="true"][data-hint="destructiveHint"] { background: #ffebe9; color: #a40e26; }
.badge[data-value="true"][data-hint="idempotentHint"] { background: #ddf4ff; color: #0550ae; }
.badge[data-value="true"][data-hint="openWorldHint"] { background: #fff8c5; color: #7d4e00; }
.badge.hidden { background: var(--code); }
table { border-collapse: collapse; width: 100%; margin: 0.5rem 0 1rem; font-size: 14px; }
th, td { border: 1px solid var(--line); padding: 0.3rem 0.5rem; text-align: left; vertical-align: top; }
th { background: var(--code); }
td.description { white-space: pre-wrap; }
.constraint { display: block; }
.description-text { white-space: pre-wrap; }
`.trim();

function text(value: string | undefined, tag = "p", cls = "description-text"): string {
  return value ? `<${tag} class="${cls}">${escape(value)}</${tag}>` : "";
}

function table(rows: Row[], kind: string, empty: string): string {
  if (!rows.length) return `<p class="empty muted" data-table="${kind}">${escape(empty)}</p>`;
  const body = rows
    .map(
      (r) =>
        `<tr data-path="${escape(r.path)}"><td class="path"><code>${escape(r.path)}</code></td><td class="type">${escape(r.type)}</td>` +
        `<td class="required">${r.required ? "yes" : "no"}</td>` +
        `<td class="constraints">${r.constraints.map(([label, value]) => `<span class="constraint">${escape(label)} <code>${escape(value)}</code></span>`).join("")}</td>` +
        `<td class="default">${r.default === undefined ? "" : `<code>${escape(r.default)}</code>`}</td>` +
        `<td class="description">${escape(r.description ?? "")}</td></tr>`,
    )
    .join("\n");
  return (
    `<table class="schema" data-table="${kind}">\n<thead><tr><th>Property</th><th>Type</th><th>Required</th><th>Constraints</th><th>Default</th><th>Description</th></tr></thead>\n` +
    `<tbody>\n${body}\n</tbody>\n</table>`
  );
}

function badge(h: Hint): string {
  return `<span class="badge" data-hint="${escape(h.key)}" data-value="${h.value}">${escape(h.label)}</span>`;
}

function heading(level: number, name: string, title: string | undefined): string {
  return `<h${level}><code class="name">${escape(name)}</code>${title ? ` <span class="title">${escape(title)}</span>` : ""}</h${level}>`;
}

function tool(t: ToolDoc): string {
  const badges = [...(t.hidden ? [`<span class="badge hidden">hidden (callable, not listed)</span>`] : []), ...t.hints.map(badge)];
  const parts = [
    `<article class="tool" id="${anchor("tool", t.name)}" data-name="${escape(t.name)}">`,
    heading(3, t.name, t.title),
    badges.length ? `<p class="badges">${badges.join(" ")}</p>` : "",
    text(t.description),
    `<h4>Input</h4>`,
    table(t.input, "input", "No arguments."),
  ];
  if (t.output) parts.push(`<h4>Output</h4>`, table(t.output, "output", "An object without declared properties."));
  if (t.examples.length) {
    parts.push(`<h4>Examples</h4>`);
    for (const e of t.examples) {
      parts.push(`<div class="example">`, text(e.description), `<pre><code>${escape(e.input)}</code></pre>`);
      if (e.output) parts.push(`<p>Result:</p>`, `<pre><code>${escape(e.output)}</code></pre>`);
      parts.push(`</div>`);
    }
  }
  parts.push(`</article>`);
  return parts.filter(Boolean).join("\n");
}

function resource(r: ResourceDoc, kind: "resource" | "template"): string {
  return [
    `<article class="${kind}" id="${anchor(kind, r.name)}" data-name="${escape(r.name)}">`,
    heading(3, r.name, r.title),
    `<p class="meta">${r.variables ? "URI template" : "URI"} <code class="uri">${escape(r.uri)}</code>${r.mimeType ? ` · MIME type <code>${escape(r.mimeType)}</code>` : ""}</p>`,
    text(r.description),
    r.variables ? `<h4>Variables</h4>\n${table(r.variables, "variables", "No variables.")}` : "",
    `</article>`,
  ]
    .filter(Boolean)
    .join("\n");
}

export function html(c: Catalog): string {
  const title = c.title ?? c.name;
  const toc = (kind: string, items: { name: string }[]) => items.map((i) => `<li><a href="#${anchor(kind, i.name)}"><code>${escape(i.name)}</code></a></li>`).join("\n");
  const section = (id: string, heading: string, body: string) => `<section id="${id}">\n<h2>${heading}</h2>\n${body}\n</section>`;
  const sections = [
    section("tools", "Tools", c.tools.length ? c.tools.map(tool).join("\n") : `<p class="muted">No tools.</p>`),
    c.resources.length ? section("resources", "Resources", c.resources.map((r) => resource(r, "resource")).join("\n")) : "",
    c.templates.length ? section("templates", "Resource templates", c.templates.map((r) => resource(r, "template")).join("\n")) : "",
    c.prompts.length
      ? section(
          "prompts",
          "Prompts",
          c.prompts
            .map((p) =>
              [`<article class="prompt" id="${anchor("prompt", p.name)}" data-name="${escape(p.name)}">`, heading(3, p.name, p.title), text(p.description), `<h4>Arguments</h4>`, table(p.arguments, "arguments", "No arguments."), `</article>`]
                .filter(Boolean)
                .join("\n"),
            )
            .join("\n"),
        )
      : "",
  ].filter(Boolean);
  const nav = [
    c.tools.length ? `<h2>Contents</h2>\n<p><a href="#tools">Tools</a></p>\n<ul>\n${toc("tool", c.tools)}\n</ul>` : "",
    c.resources.length ? `<p><a href="#resources">Resources</a></p>\n<ul>\n${toc("resource", c.resources)}\n</ul>` : "",
    c.templates.length ? `<p><a href="#templates">Resource templates</a></p>\n<ul>\n${toc("template", c.templates)}\n</ul>` : "",
    c.prompts.length ? `<p><a href="#prompts">Prompts</a></p>\n<ul>\n${toc("prompt", c.prompts)}\n</ul>` : "",
  ].filter(Boolean);
  return [
    "<!doctype html>",
    `<!-- ${escape(c.generatedBy).replace(/--/g, "- -")} -->`,
    `<html lang="en">`,
    "<head>",
    `<meta charset="utf-8">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    `<title>${escape(title)} — MCP server</title>`,
    `<style>\n${STYLE}\n</style>`,
    "</head>",
    "<body>",
    "<header>",
    `<h1>${escape(title)}</h1>`,
    `<p class="meta"><code>${escape(c.name)}</code> version <code>${escape(c.version)}</code>${c.websiteUrl ? ` · ${escape(c.websiteUrl)}` : ""}</p>`,
    text(c.description),
    c.instructions ? `<h2>Instructions</h2>\n<pre class="instructions">${escape(c.instructions)}</pre>` : "",
    `<p class="meta counts">${counts(c)}</p>`,
    "</header>",
    nav.length ? `<nav>\n${nav.join("\n")}\n</nav>` : "",
    "<main>",
    ...sections,
    "</main>",
    "</body>",
    "</html>",
  ]
    .filter(Boolean)
    .join("\n") + "\n";
}
