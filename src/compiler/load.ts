/**
 * load: read the schemas folder in sorted order and parse every file (JSON, or YAML for .yaml/.yml).
 * In: the schemas directory. Out: a `Sources` set of parsed documents, each remembering its file.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { compare, LONE_SURROGATE, pointerJoin, type Diagnostic } from "./diagnostics.js";

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
  /** Schema files that could not be read or parsed, relative to the schemas folder (their problems are reported). */
  unloaded: string[];
  /** SHA-256 over every file's path and bytes: equal digests, equal input. */
  digest: string;
}

const SCHEMA_FILE = /\.(json|ya?ml)$/i;

/**
 * How deep objects and arrays may nest in an input file. Every stage after load walks schemas
 * recursively; this keeps them all far from the stack's end (a real tool schema nests a few dozen deep).
 */
export const MAX_DEPTH = 100;

/** How many alias nodes a YAML file may expand (the yaml library's `maxAliasCount`): no "billion laughs". */
export const MAX_YAML_ALIASES = 100;

/** A folder entry that is not loaded, and why (dot-files are not listed at all). */
interface Refused {
  file: string;
  why: string;
}

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
  for (const { file, why } of files.refused) diagnostics.push({ file: toDisplay(cwd, file), pointer: "", message: why });
  const sources: Sources = { dir: abs, server: undefined, annotations: undefined, tools: [], resources: [], prompts: [], defs: [], all: [], unloaded: [], digest: "" };
  const digest = createHash("sha256");
  // Every file is below `abs` (listFiles joins names onto it): its path from there is the rest of its path,
  // and it is shown as the folder is (two `path.relative` calls a file were ~5 ms of a 1,000-tool build).
  const below = abs.endsWith(path.sep) ? abs.length : abs.length + 1;
  const shown = toDisplay(cwd, abs);
  const shownBelow = shown === "" ? "" : shown.endsWith("/") ? shown : `${shown}/`;
  for (const file of files.schemas) {
    const rel = path.sep === "/" ? file.slice(below) : file.slice(below).split(path.sep).join("/");
    const display = shownBelow + rel;
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      diagnostics.push({ file: display, pointer: "", message: `cannot read: ${(error as Error).message}` });
      sources.unloaded.push(rel);
      continue;
    }
    const fileDigest = createHash("sha256").update(text).digest("hex");
    digest.update(`${rel}\0${fileDigest}\0`);
    const parsed = await parse(text, /\.ya?ml$/i.test(file));
    if ("error" in parsed) {
      diagnostics.push({ file: display, pointer: "", message: parsed.error });
      sources.unloaded.push(rel);
      continue;
    }
    const unusable = unusableValue(parsed.value, /\.ya?ml$/i.test(file) || SURROGATE_ESCAPE.test(text));
    if (unusable) {
      diagnostics.push({ file: display, ...unusable });
      sources.unloaded.push(rel);
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

/**
 * Every schema file below `dir`, sorted by path (never trust readdir order), and every other entry, refused:
 * files of other kinds and symbolic links (not followed: a link may leave the folder or loop). Names
 * starting with a dot (.DS_Store, .git) are ignored.
 */
async function listFiles(dir: string, out = { schemas: [] as string[], refused: [] as Refused[] }): Promise<typeof out> {
  const entries = await readdir(dir, { withFileTypes: true });
  for (const entry of entries.sort((a, b) => compare(a.name, b.name))) {
    if (entry.name.startsWith(".")) continue;
    const full = path.join(dir, entry.name);
    if (entry.isSymbolicLink())
      out.refused.push({ file: full, why: "symbolic link: links are not followed in the schemas folder; put the file itself here" });
    else if (entry.isDirectory()) await listFiles(full, out);
    else if (!entry.isFile()) out.refused.push({ file: full, why: "not a regular file" });
    else if (SCHEMA_FILE.test(entry.name)) out.schemas.push(full);
    else out.refused.push({ file: full, why: "unexpected file: the schemas folder holds .json, .yaml and .yml files only (names starting with a dot are ignored)" });
  }
  return out;
}

/**
 * The first place where a parsed value is one mcpgen cannot process: nested deeper than `MAX_DEPTH`, or a
 * key or string with a lone surrogate (a `\ud800` escape: no Unicode text, and no file name or identifier).
 * Recursive, but never deeper than `MAX_DEPTH`, so the check itself cannot run out of stack; it allocates
 * nothing per value, and the pointer is made only for a finding. The order is that of a depth-first walk
 * taking the last member first, after the names of all members of an object. `strings: false` skips the
 * surrogate tests, for a JSON text without a surrogate escape (read as UTF-8, a file holds no lone
 * surrogate otherwise).
 */
function unusableValue(value: unknown, strings = true): { pointer: string; message: string } | undefined {
  const path: (string | number)[] = []; // filled in on the way back from a finding, innermost first
  const find = (node: unknown, depth: number): string | undefined => {
    if (typeof node === "string") return strings && LONE_SURROGATE.test(node) ? "string with a lone surrogate (an unpaired \\ud800-\\udfff escape): not valid Unicode" : undefined;
    if (node === null || typeof node !== "object") return undefined;
    if (depth >= MAX_DEPTH) return `nested more than ${MAX_DEPTH} levels deep: flatten it, or move parts into defs/ and use $ref`;
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) {
        const found = find(node[i], depth + 1);
        if (found) return (path.push(i), found);
      }
      return undefined;
    }
    const keys = Object.keys(node);
    if (strings)
      for (const key of keys)
        if (LONE_SURROGATE.test(key)) return (path.push(key), "name with a lone surrogate (an unpaired \\ud800-\\udfff escape): not valid Unicode");
    for (let i = keys.length - 1; i >= 0; i--) {
      const found = find((node as Record<string, unknown>)[keys[i]!], depth + 1);
      if (found) return (path.push(keys[i]!), found);
    }
    return undefined;
  };
  const message = find(value, 0);
  return message === undefined ? undefined : { pointer: pointerJoin("", ...path.reverse()), message };
}

/** Whether a JSON text may hold a surrogate escape (`\ud800`-`\udfff`), the one way to a lone surrogate. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

// The YAML parser loads only for YAML files and for JSON errors (to place them): most builds never need it.
// The yaml library is CommonJS for Node: imported, its exports are named exports and `default`; in the CLI's
// bundle (scripts/bundle.mjs), a dynamic import of CommonJS code has `default` only.
type Yaml = typeof import("yaml");
let yamlParser: Yaml | undefined;
async function yamlModule(): Promise<Yaml> {
  if (yamlParser) return yamlParser;
  const module = (await import("yaml")) as Partial<Yaml> & { default?: Yaml };
  return (yamlParser = typeof module.parseDocument === "function" ? (module as Yaml) : module.default!);
}

async function parse(text: string, yaml: boolean): Promise<{ value: unknown } | { error: string }> {
  if (yaml) {
    const { parseDocument } = await yamlModule();
    const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
    const error = doc.errors[0];
    if (error) return { error: `invalid YAML${position(error.linePos?.[0])}: ${error.message.replace(/ at line \d+, column \d+:[\s\S]*$/, "")}` };
    try {
      return { value: doc.toJS({ maxAliasCount: MAX_YAML_ALIASES }) };
    } catch (error) {
      // The yaml library throws a ReferenceError when aliases would expand past the limit.
      if (!(error instanceof ReferenceError)) throw error;
      return { error: `invalid YAML: its aliases expand too far (more than ${MAX_YAML_ALIASES} alias nodes); write the values out, or share them with $ref` };
    }
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
