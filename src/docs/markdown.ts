/**
 * The catalog as Markdown (GitHub-flavoured: tables). Every text from a schema is escaped so that it reads as
 * itself: Markdown punctuation is backslash-escaped (inline everywhere, block markers at a line's start), `<`/`>`/`&` become entities (no raw HTML gets through),
 * line breaks inside a table cell become spaces, and code spans and fences are longer than any run of
 * backticks inside them.
 */
import { counts, type Catalog, type ResourceDoc, type Row } from "./model.js";

/** Plain text: nothing in it is Markdown or HTML. */
export function text(value: string): string {
  return value
    .replace(/\r\n?|[\n\u2028\u2029]/g, " ")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/[\\`*_[\]|~]/g, (c) => `\\${c}`)
    // What starts a block only at the start of a line: a heading, a list, a quote (already `&gt;`), a rule.
    .replace(/^(\s*)([#+=-]|\d+(?=[.)]))/, (_, space: string, c: string) => (/\d/.test(c) ? `${space}${c}\\` : `${space}\\${c}`));
}

/** A code span (verbatim; in a table cell `|` is escaped, which GFM unescapes inside code there). */
export function code(value: string, cell = true): string {
  const flat = value.replace(/\r\n?|[\n\u2028\u2029]/g, " ").replace(/\|/g, cell ? "\\|" : "|");
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = flat.startsWith("`") || flat.endsWith("`") || flat.trim() === "" ? " " : "";
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** A fenced code block longer than any backtick run in it. */
function block(value: string, lang: string): string {
  const longest = Math.max(0, ...(value.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${value}\n${fence}`;
}

/** A paragraph of plain text, its line breaks kept as hard breaks. */
function paragraph(value: string): string {
  return value
    .split(/\r\n?|\n/)
    .map((line) => text(line))
    .join("  \n");
}

function table(rows: Row[], empty: string): string[] {
  if (!rows.length) return [empty, ""];
  return [
    "| Property | Type | Required | Constraints | Default | Description |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows.map((r) =>
      [
        code(r.path),
        text(r.type),
        r.required ? "yes" : "no",
        r.constraints.map(([label, value]) => `${text(label)} ${code(value)}`).join("; "),
        r.default === undefined ? "" : code(r.default),
        r.description === undefined ? "" : text(r.description),
      ].join(" | "),
    ).map((line) => `| ${line} |`),
    "",
  ];
}

const heading = (level: number, name: string, title: string | undefined) => `${"#".repeat(level)} ${code(name, false)}${title ? ` — ${text(title)}` : ""}`;

function resource(r: ResourceDoc, level: number): string[] {
  return [
    heading(level, r.name, r.title),
    "",
    `${r.variables ? "URI template" : "URI"}: ${code(r.uri, false)}${r.mimeType ? ` · MIME type: ${code(r.mimeType, false)}` : ""}`,
    "",
    ...(r.description ? [paragraph(r.description), ""] : []),
    ...(r.variables ? ["Variables:", "", ...table(r.variables, "No variables.")] : []),
  ];
}

export function markdown(c: Catalog): string {
  const lines: string[] = [`<!-- ${c.generatedBy.replace(/--/g, "- -")} -->`, "", `# ${text(c.title ?? c.name)}`, ""];
  lines.push(`${code(c.name, false)} version ${code(c.version, false)}${c.websiteUrl ? ` · ${text(c.websiteUrl)}` : ""}`, "");
  if (c.description) lines.push(paragraph(c.description), "");
  if (c.instructions) lines.push("## Instructions", "", block(c.instructions, "text"), "");
  lines.push(counts(c), "");

  lines.push("## Tools", "");
  if (!c.tools.length) lines.push("No tools.", "");
  for (const t of c.tools) {
    lines.push(heading(3, t.name, t.title), "");
    const badges = [...(t.hidden ? ["hidden (callable, not listed)"] : []), ...t.hints.map((h) => h.label)];
    if (badges.length) lines.push(badges.map((b) => `**${text(b)}**`).join(" · "), "");
    if (t.description) lines.push(paragraph(t.description), "");
    lines.push("#### Input", "", ...table(t.input, "No arguments."));
    if (t.output) lines.push("#### Output", "", ...table(t.output, "An object without declared properties."));
    if (t.examples.length) {
      lines.push("#### Examples", "");
      for (const e of t.examples) {
        if (e.description) lines.push(paragraph(e.description), "");
        lines.push(block(e.input, "json"), "");
        if (e.output) lines.push("Result:", "", block(e.output, "json"), "");
      }
    }
  }
  if (c.resources.length) {
    lines.push("## Resources", "");
    for (const r of c.resources) lines.push(...resource(r, 3));
  }
  if (c.templates.length) {
    lines.push("## Resource templates", "");
    for (const r of c.templates) lines.push(...resource(r, 3));
  }
  if (c.prompts.length) {
    lines.push("## Prompts", "");
    for (const p of c.prompts) {
      lines.push(heading(3, p.name, p.title), "");
      if (p.description) lines.push(paragraph(p.description), "");
      lines.push("Arguments:", "", ...table(p.arguments, "No arguments."));
    }
  }
  return lines.join("\n").replace(/\n+$/, "") + "\n";
}
