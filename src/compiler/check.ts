/**
 * check: validate every input file against mcpgen's meta-schemas and the dialect's JSON Schema
 * meta-schema, then run the named rules. In: `Sources`. Out: `Checked` (typed input files, resolved
 * hints) plus diagnostics. Files that fail their meta-schema are left out of later stages.
 */
import path from "node:path";
import type { SourceDoc, Sources } from "./load.js";
import type { Dialect } from "./ajv.js";
import { checkPrimitives, type CheckedPrimitives } from "./check-primitives.js";
import { checkSchema, dialectOf, NAME, type Context } from "./check-schema.js";
import { validateFile } from "./meta-validators.js";
import { ajvDiagnostics, pointerJoin, type Diagnostic } from "./diagnostics.js";
import { BUILTIN_PRESETS, HINT_KEYS, type Hints } from "./meta-schemas.js";
import { typeName } from "./names.js";

export interface ServerFile {
  name: string;
  version: string;
  title?: string;
  description?: string;
  instructions?: string;
  websiteUrl?: string;
  icons?: Record<string, unknown>[];
}

export interface ToolExample {
  description?: string;
  input: unknown;
  output?: unknown;
  /** The call is expected to end in an `isError` result (`mcpgen test`); `output` is then not allowed. */
  isError?: boolean;
  /** Text the `isError` result must contain. */
  error?: string;
}

export interface ToolFile {
  doc: SourceDoc;
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown> | boolean;
  outputSchema?: Record<string, unknown> | boolean;
  icons?: Record<string, unknown>[];
  _meta?: Record<string, unknown>;
  hidden?: boolean;
  execution?: { taskSupport?: "forbidden" | "optional" | "required" };
  examples?: ToolExample[];
}

export interface CheckedTool {
  file: ToolFile;
  dialect: Dialect;
  hints: Hints;
}

export interface Checked {
  server: ServerFile;
  serverDoc: SourceDoc;
  annotationsDoc: SourceDoc | undefined;
  tools: CheckedTool[];
  defs: { doc: SourceDoc; dialect: Dialect }[];
  primitives: CheckedPrimitives;
}

const { server: validateServer, annotations: validateAnnotations, tool: validateTool } = validateFile;

/**
 * What earlier builds learnt: the tool and defs files (by path and content) that passed every check of
 * their own, which therefore need none again. The named rules across files and the manifest run every time.
 */
export interface CheckMemo {
  passed(doc: SourceDoc): boolean;
  pass(doc: SourceDoc): void;
}

export function check(sources: Sources, memo?: CheckMemo): { checked: Checked | undefined; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  const ctx: Context = {
    diagnostics,
    report: (doc, pointer, message) => diagnostics.push({ file: doc.file, pointer, message }),
    warnings,
    warn: (doc, pointer, message) => warnings.push({ file: doc.file, pointer, message, severity: "warning" }),
  };
  const passed = new Set(memo ? [...sources.tools, ...sources.defs].filter((doc) => memo.passed(doc)) : []);

  const server = checkServer(sources, ctx);
  const defs = sources.defs.flatMap((doc) => {
    if (passed.has(doc)) return [{ doc, dialect: dialectOf(doc.value, undefined) }];
    const before = diagnostics.length + warnings.length;
    const dialect = checkSchema(doc.value, doc, "", undefined, ctx);
    if (dialect && diagnostics.length + warnings.length === before) memo?.pass(doc);
    return dialect ? [{ doc, dialect }] : [];
  });
  const tools = sources.tools.flatMap((doc) => (passed.has(doc) ? [toolFile(doc)] : checkToolFile(doc, ctx)));
  for (const [name, rule] of toolRules) rule(tools, ctx, name);
  // Tool files that failed to load or to pass their meta-schema still name a tool (by file name at least).
  const named = [...sources.tools.map(toolName), ...sources.unloaded.filter((rel) => rel.startsWith("tools/")).map(fileStem)];
  const manifest = checkManifest(sources.annotations, tools, named, ctx);
  const checkedTools = tools.flatMap((t) => {
    let dialect: Dialect | undefined;
    let outDialect: Dialect | undefined;
    if (passed.has(t.doc)) {
      dialect = dialectOf(t.inputSchema, undefined);
      outDialect = t.outputSchema === undefined ? dialect : dialectOf(t.outputSchema, dialect);
    } else {
      const before = diagnostics.length + warnings.length; // a file with warnings is checked again, to warn again
      dialect = checkSchema(t.inputSchema, t.doc, "/inputSchema", undefined, ctx);
      outDialect = t.outputSchema === undefined ? dialect : checkSchema(t.outputSchema, t.doc, "/outputSchema", dialect, ctx);
      if (dialect && outDialect && diagnostics.length + warnings.length === before) memo?.pass(t.doc);
    }
    const hints = manifest.get(t.name);
    return dialect && outDialect && hints ? [{ file: t, dialect, hints }] : [];
  });
  const primitives = checkPrimitives(sources.resources, sources.prompts, ctx);
  if (!server) return { checked: undefined, diagnostics: [...diagnostics, ...warnings] };
  return {
    checked: { server: server.value, serverDoc: server.doc, annotationsDoc: sources.annotations, tools: checkedTools, defs, primitives },
    diagnostics: [...diagnostics, ...warnings],
  };
}

function checkServer(sources: Sources, ctx: Context): { value: ServerFile; doc: SourceDoc } | undefined {
  const doc = sources.server;
  if (!doc && sources.unloaded.some((rel) => /^server\.(json|ya?ml)$/i.test(rel))) return undefined; // its problem is reported
  if (!doc) {
    ctx.diagnostics.push({
      file: path.posix.join(displayDir(sources), "server.json"),
      pointer: "",
      message: 'missing: every server needs a server.json with at least "name" and "version"',
    });
    return undefined;
  }
  if (!validateServer(doc.value)) {
    ctx.diagnostics.push(...ajvDiagnostics(validateServer.errors, doc.file, ""));
    return undefined;
  }
  return { value: doc.value as unknown as ServerFile, doc };
}

function checkToolFile(doc: SourceDoc, ctx: Context): ToolFile[] {
  if (!validateTool(doc.value)) {
    ctx.diagnostics.push(
      ...ajvDiagnostics(validateTool.errors, doc.file, "").map((d) => {
        if (d.message !== "unknown property") return d;
        if (d.pointer === "/annotations") return { ...d, message: "unknown property: behaviour hints belong in annotations.json" };
        return d;
      }),
    );
    return [];
  }
  return [toolFile(doc)];
}

function toolFile(doc: SourceDoc): ToolFile {
  return { ...(doc.value as Omit<ToolFile, "doc" | "name">), name: toolName(doc), doc };
}

/** A tool's name: its `name`, or else its file name without the extension. */
function toolName(doc: SourceDoc): string {
  const name = (doc.value as { name?: unknown } | null)?.name;
  return typeof name === "string" ? name : fileStem(doc.rel);
}

function fileStem(rel: string): string {
  return path.posix.basename(rel).replace(/\.(json|ya?ml)$/i, "");
}

type ToolRule = (tools: ToolFile[], ctx: Context, rule: string) => void;

/** Named rules over all tool files; the names document what is checked. */
const toolRules = new Map<string, ToolRule>([
  [
    "tool names are 1-128 characters of A-Z a-z 0-9 _ . -",
    (tools, ctx) => {
      for (const t of tools)
        if (!NAME.test(t.name))
          ctx.report(
            t.doc,
            t.doc.value && (t.doc.value as { name?: unknown }).name !== undefined ? "/name" : "",
            `invalid tool name ${JSON.stringify(t.name)}: use 1-128 characters of A-Z a-z 0-9 _ . -`,
          );
    },
  ],
  [
    "tool names are unique",
    (tools, ctx) => {
      const seen = new Map<string, ToolFile>();
      for (const t of tools) {
        const first = seen.get(t.name);
        if (first) ctx.report(t.doc, "/name", `duplicate tool name "${t.name}" (also defined in ${first.doc.file})`);
        else seen.set(t.name, t);
      }
    },
  ],
  [
    "handler files and type names do not collide, even on case-insensitive file systems",
    (tools, ctx) => {
      const byFile = new Map<string, ToolFile>();
      const byType = new Map<string, ToolFile>();
      for (const t of tools) {
        const fileKey = t.name.toLowerCase();
        const other = byFile.get(fileKey);
        if (other && other.name !== t.name)
          ctx.report(t.doc, "/name", `tool "${t.name}" and tool "${other.name}" (${other.doc.file}) would share a handler file on case-insensitive file systems`);
        byFile.set(fileKey, t);
        const type = typeName(t.name);
        const clash = byType.get(type);
        if (clash && clash.name !== t.name && clash.name.toLowerCase() !== fileKey)
          ctx.report(t.doc, "/name", `tool "${t.name}" and tool "${clash.name}" (${clash.doc.file}) would both be named ${type} in generated types`);
        byType.set(type, t);
      }
    },
  ],
]);

/**
 * Validates the annotation manifest and resolves every tool's hints (presets expanded, then the tool's
 * own hints on top). Tools whose hints cannot be resolved are missing from the result.
 */
function checkManifest(doc: SourceDoc | undefined, tools: ToolFile[], allToolNames: string[], ctx: Context): Map<string, Hints> {
  const resolved = new Map<string, Hints>();
  type Entry = string | string[] | ({ preset?: string | string[] } & Hints);
  let manifest: { requireHints?: boolean; presets?: Record<string, Hints>; tools?: Record<string, Entry> } = {};
  if (doc) {
    if (!validateAnnotations(doc.value)) {
      ctx.diagnostics.push(
        ...ajvDiagnostics(validateAnnotations.errors, doc.file, "").map((d) =>
          d.message === "unknown property" && /^\/(presets|tools)\/[^/]+\//.test(d.pointer)
            ? { ...d, message: `unknown hint: use ${HINT_KEYS.join(", ")}` }
            : d,
        ),
      );
      return resolved;
    }
    manifest = doc.value as typeof manifest;
  }
  const presets = { ...BUILTIN_PRESETS, ...manifest.presets };
  const requireHints = manifest.requireHints ?? true;
  const names = new Set(tools.map((t) => t.name));
  // Tool files that failed their meta-schema still name a tool: no "no tool named" noise for them.
  const known = new Set([...names, ...allToolNames]);
  const where = doc?.file ?? "annotations.json";

  for (const [tool, entry] of Object.entries(manifest.tools ?? {})) {
    if (!known.has(tool) && doc) ctx.report(doc, pointerJoin("/tools", tool), `no tool named "${tool}" (known: ${[...names].sort().join(", ") || "none"})`);
  }
  for (const [name, hints] of Object.entries(manifest.presets ?? {})) {
    if (doc) checkContradiction(hints, doc, pointerJoin("/presets", name), ctx);
  }
  for (const t of tools) {
    const entry = manifest.tools && Object.hasOwn(manifest.tools, t.name) ? manifest.tools[t.name] : undefined;
    if (entry === undefined) {
      if (requireHints && tools.length > 0) {
        ctx.report(
          t.doc,
          "",
          `tool "${t.name}" has no behaviour hints in ${where}: add it under "tools" (e.g. "${t.name}": "readOnly"), or set "requireHints": false`,
        );
        continue;
      }
      resolved.set(t.name, {});
      continue;
    }
    const at = pointerJoin("/tools", t.name);
    const { preset, ...own } = typeof entry === "string" || Array.isArray(entry) ? { preset: entry } : entry;
    const list = preset === undefined ? [] : Array.isArray(preset) ? preset : [preset];
    let hints: Hints = {};
    let ok = true;
    list.forEach((p, i) => {
      const found = Object.hasOwn(presets, p) ? presets[p] : undefined;
      if (!found) {
        ok = false;
        const pointer = typeof entry === "string" ? at : Array.isArray(entry) ? pointerJoin(at, i) : pointerJoin(at, "preset", ...(Array.isArray(preset) ? [i] : []));
        ctx.report(doc!, pointer, `unknown preset "${p}" (known: ${Object.keys(presets).sort().join(", ")})`);
      } else hints = { ...hints, ...found };
    });
    hints = { ...hints, ...own };
    if (ok && checkContradiction(hints, doc!, at, ctx)) resolved.set(t.name, hints);
  }
  return resolved;
}

function checkContradiction(hints: Hints, doc: SourceDoc, pointer: string, ctx: Context): boolean {
  if (hints.readOnlyHint === true && hints.destructiveHint === true) {
    ctx.report(doc, pointer, "contradictory hints: readOnlyHint and destructiveHint are both true");
    return false;
  }
  return true;
}

function displayDir(sources: Sources): string {
  const first = sources.all[0];
  return first ? first.file.slice(0, first.file.length - first.rel.length - 1) : path.basename(sources.dir);
}
