/**
 * load: read the schemas folder in sorted order and parse every file (JSON, or YAML for .yaml/.yml).
 * In: the schemas directory. Out: a `Sources` set of parsed documents, each remembering its file.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { compare, type Diagnostic } from "./diagnostics.js";

export interface SourceDoc {
  /** Path for diagnostics: relative to the working directory, forward slashes. */
  file: string;
  /** Absolute file URL, the base for `$ref` resolution. */
  url: string;
  /** Path relative to the schemas folder, forward slashes (e.g. `tools/search.json`). */
  rel: string;
  value: unknown;
  /** SHA-256 of the file's bytes. */
  digest: string;
}

export interface Sources {
  dir: string;
  server: SourceDoc | undefined;
  annotations: SourceDoc | undefined;
  tools: SourceDoc[];
  resources: SourceDoc[];
  prompts: SourceDoc[];
  defs: SourceDoc[];
  /** Every file loaded, including defs nested anywhere (for cross-file `$ref`). */
  all: SourceDoc[];
  /** SHA-256 over every file's path and bytes: equal digests, equal input. */
  digest: string;
}

const SCHEMA_FILE = /\.(json|ya?ml)$/i;

export async function load(dir: string, cwd: string): Promise<{ sources: Sources | undefined; diagnostics: Diagnostic[] }> {
  const diagnostics: Diagnostic[] = [];
  const abs = path.resolve(cwd, dir);
  const files = await listFiles(abs).catch((error: NodeJS.ErrnoException) => {
    const file = toDisplay(cwd, abs);
    diagnostics.push({
      file,
      pointer: "",
      message: error.code === "ENOENT" ? "schemas folder not found" : `cannot read schemas folder: ${error.message}`,
    });
    return undefined;
  });
  if (!files) return { sources: undefined, diagnostics };
  const sources: Sources = { dir: abs, server: undefined, annotations: undefined, tools: [], resources: [], prompts: [], defs: [], all: [], digest: "" };
  const digest = createHash("sha256");
  for (const file of files) {
    const rel = path.relative(abs, file).split(path.sep).join("/");
    const display = toDisplay(cwd, file);
    const text = readFileSync(file, "utf8");
    const fileDigest = createHash("sha256").update(text).digest("hex");
    digest.update(`${rel}\0${fileDigest}\0`);
    const parsed = await parse(text, /\.ya?ml$/i.test(file));
    if ("error" in parsed) {
      diagnostics.push({ file: display, pointer: "", message: parsed.error });
      continue;
    }
    const doc: SourceDoc = { file: display, url: pathToFileURL(file).href, rel, value: parsed.value, digest: fileDigest };
    sources.all.push(doc);
    const base = rel.replace(SCHEMA_FILE, "");
    if (base === "server") sources.server = doc;
    else if (base === "annotations") sources.annotations = doc;
    else if (/^tools\/[^/]+$/.test(rel)) sources.tools.push(doc);
    else if (/^resources\/[^/]+$/.test(rel)) sources.resources.push(doc);
    else if (/^prompts\/[^/]+$/.test(rel)) sources.prompts.push(doc);
    else if (rel.startsWith("defs/")) sources.defs.push(doc);
    else
      diagnostics.push({
        file: display,
        pointer: "",
        message:
          "unexpected file: the layout is server.json, annotations.json, tools/*, resources/*, prompts/* and defs/**",
      });
  }
  sources.digest = digest.digest("hex");
  return { sources, diagnostics };
}

/** Every schema file below `dir`, sorted by path (never trust readdir order). */
async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const out: string[] = [];
  for (const entry of entries.sort((a, b) => compare(a.name, b.name))) {
    if (entry.name.startsWith(".")) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(full)));
    else if (entry.isFile() && SCHEMA_FILE.test(entry.name)) out.push(full);
  }
  return out;
}

// The YAML parser loads only for YAML files and for JSON errors (to place them): most builds never need it.
let yamlParser: typeof import("yaml") | undefined;
const yamlModule = async () => (yamlParser ??= await import("yaml"));

async function parse(text: string, yaml: boolean): Promise<{ value: unknown } | { error: string }> {
  if (yaml) {
    const { parseDocument } = await yamlModule();
    const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
    const error = doc.errors[0];
    if (error) return { error: `invalid YAML${position(error.linePos?.[0])}: ${error.message.replace(/ at line \d+, column \d+:[\s\S]*$/, "")}` };
    return { value: doc.toJS() };
  }
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    // Node's message may carry a snippet of the text or a position; report line and column instead.
    const message = (error as Error).message;
    const offset = /position (\d+)/.exec(message)?.[1];
    const at = offset === undefined ? (await yamlModule()).parseDocument(text).errors[0]?.linePos?.[0] : lineCol(text, Number(offset));
    const reason = message.replace(/, "[\s\S]*" is not valid JSON$/, "").replace(/ in JSON at position \d+[\s\S]*$/, "");
    return { error: `invalid JSON${position(at)}: ${reason}` };
  }
}

function lineCol(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset);
  return { line: before.split("\n").length, col: before.length - before.lastIndexOf("\n") };
}

function position(at: { line: number; col: number } | undefined): string {
  return at ? ` (line ${at.line}, column ${at.col})` : "";
}

export function toDisplay(cwd: string, file: string): string {
  const rel = path.relative(cwd, file);
  return (rel.startsWith("..") || path.isAbsolute(rel) ? file : rel).split(path.sep).join("/");
}
