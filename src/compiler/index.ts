/**
 * mcpgen's compiler: schemas/ → load → check → normalize → IR → emit → write.
 * `build()` is the whole pipeline; each stage lives in its own module (see ARCHITECTURE.md).
 */
import { readFileSync } from "node:fs";
import { cacheKey, openCache, type Cache } from "./cache.js";
import type { CheckMemo } from "./check.js";
import { configProblems, resolveConfig, type BuildConfig, type BuildOptions } from "./config.js";
import { DiagnosticError, isWarning, sortDiagnostics, type Diagnostic } from "./diagnostics.js";
import type { ServerIR } from "./ir.js";
import type { Bundled, NormalizeMemo } from "./normalize.js";
import { load, type SourceDoc, type Sources } from "./load.js";
import { codeDigest, inputDigest, lastBuild, saveStamp } from "./stamp.js";
import { compareOutput, leftBehindHandlers, OutputError, write, type Comparison, type WriteResult } from "./write.js";

export { DiagnosticError, formatDiagnostic, type Diagnostic } from "./diagnostics.js";
export { resolveConfig, DEFAULTS, type BuildConfig, type BuildOptions } from "./config.js";
export { OutputError, type Comparison, type WriteResult } from "./write.js";

export const VERSION: string = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

export type BuildResult =
  | ({ mode: "write"; config: BuildConfig; counts: Counts; warnings: Diagnostic[] } & WriteResult)
  | ({ mode: "check"; config: BuildConfig; counts: Counts; warnings: Diagnostic[]; upToDate: boolean } & Comparison);

/** What the server declares: tools, resources (static and templates) and prompts. */
export interface Counts {
  tools: number;
  resources: number;
  prompts: number;
}

/** Left-behind handler files, as warnings (see `leftBehindHandlers`). */
function leftBehind(handlers: Iterable<string>, config: BuildConfig): Diagnostic[] {
  return leftBehindHandlers(handlers, config).map((file) => ({
    file,
    pointer: "",
    message: "left-behind handler: no tool, resource or prompt in the schemas uses it any more (and tsc fails on its missing handler type); delete it if you no longer need it",
    severity: "warning" as const,
  }));
}

/** A build's diagnostics: errors stop it after the stage that found them; warnings go with the result. */
class Findings {
  readonly errors: Diagnostic[] = [];
  readonly warnings: Diagnostic[] = [];

  /** Takes a stage's diagnostics and passes its result on. */
  readonly gate = <T>(result: T & { diagnostics: Diagnostic[] }): T => {
    for (const d of result.diagnostics) (isWarning(d) ? this.warnings : this.errors).push(d);
    return result;
  };

  fail(): DiagnosticError {
    return new DiagnosticError([...this.errors, ...this.warnings]);
  }
}

/** What earlier builds learnt, by content: which files passed their checks, and each tool as normalize made it. */
interface Memos {
  check: CheckMemo;
  normalize: NormalizeMemo;
}

/** The memos of a build, kept in its cache (entries of mcpgen's own code only: `codeDigest`). */
function memos(cache: Cache): Memos {
  // Digests already: a prefix for mcpgen's own code, hashed once, and the digest make the key.
  const checked = cacheKey("checked", codeDigest());
  const bundled = cacheKey("bundled", codeDigest());
  const checkedKey = (doc: SourceDoc) => `${checked}${JSON.stringify(doc.rel)}${doc.digest}`;
  const bundledKey = (digest: string) => bundled + digest;
  return {
    check: { passed: (doc) => cache.get(checkedKey(doc)) !== undefined, pass: (doc) => cache.set(checkedKey(doc), "") },
    normalize: {
      get: (digest) => {
        const kept = cache.get(bundledKey(digest));
        return kept === undefined ? undefined : (JSON.parse(kept) as Bundled);
      },
      set: (digest, bundled) => cache.set(bundledKey(digest), JSON.stringify(bundled)),
    },
  };
}

/** The cache key of what emit keeps by a digest of what it is made from (for mcpgen's own code only). */
function emitKeepKey(): (digest: string) => string {
  const prefix = cacheKey("emit keeps", codeDigest());
  return (digest) => prefix + digest;
}

/** check → normalize → IR of loaded sources; throws `DiagnosticError` when a stage found errors. */
async function analyze(sources: Sources, findings: Findings, memo?: Memos): Promise<ServerIR> {
  // The stages that need ajv load only when there is work.
  const [{ check }, { normalize }, { toIR }] = await Promise.all([import("./check.js"), import("./normalize.js"), import("./ir.js")]);
  const { checked } = findings.gate(check(sources, memo?.check));
  const { normalized } = checked ? findings.gate(normalize(checked, memo?.normalize)) : { normalized: undefined };
  if (findings.errors.length || !checked || !normalized) throw findings.fail();
  return toIR(checked, normalized);
}

/** Compiles a schemas folder. Throws `DiagnosticError` (with every problem) before writing anything. */
export async function build(options: BuildOptions = {}): Promise<BuildResult> {
  const config = resolveConfig(options);
  const problems = configProblems(config);
  if (problems.length) throw new OutputError(problems.join("\n"));
  const findings = new Findings();

  // load → (up to date? done) → check → normalize → IR → emit → check the output or write it.
  const { sources } = findings.gate(await load(config.schemasDir, config.cwd));
  const input = sources && !findings.errors.length ? inputDigest(sources.digest, config) : undefined;
  const last = input ? lastBuild(config, input) : undefined;
  if (last?.upToDate) {
    const { counts, handlers, warnings: found = [] } = last.upToDate;
    const warnings = sortDiagnostics([...found, ...leftBehind(handlers, config)]);
    return { mode: "write", config, counts, warnings, updated: [], removed: [], createdHandlers: [] };
  }
  if (!sources) throw findings.fail();

  const cache = openCache(config.cacheDir);
  const [ir, { emit }] = await Promise.all([analyze(sources, findings, config.cacheDir ? memos(cache) : undefined), import("./emit/index.js")]);
  const keepKey = config.cacheDir ? emitKeepKey() : undefined;
  const emitted = findings.gate(await emit(ir, config, cache, VERSION, last?.untouched, keepKey));
  cache.save(); // what compiled is worth keeping even when an example failed
  if (findings.errors.length) throw findings.fail();

  const counts = { tools: ir.tools.length, resources: ir.resources.length + ir.templates.length, prompts: ir.prompts.length };
  const warnings = sortDiagnostics(findings.warnings);
  if (config.check) {
    const comparison = compareOutput(emitted, config);
    const upToDate = [comparison.changed, comparison.missing, comparison.extra, comparison.missingHandlers, comparison.leftBehindHandlers].every((list) => !list.length);
    return { mode: "check", config, counts, warnings, upToDate, ...comparison };
  }
  const written = write(emitted, config);
  if (input) saveStamp(config, { input, counts, handlers: [...emitted.stubs.keys()], warnings }, emitted, last?.found);
  return { mode: "write", config, counts, warnings: sortDiagnostics([...warnings, ...leftBehind(emitted.stubs.keys(), config)]), ...written };
}

export type { ServerIR, ToolIR, ResourceIR, TemplateIR, PromptIR } from "./ir.js";

/**
 * The server as the compiler sees it, for tools that read it rather than build it (`mcpgen docs`):
 * load → check → normalize → IR, nothing emitted or written. Throws `DiagnosticError` on any error.
 */
export async function compileIr(options: Pick<BuildOptions, "schemas" | "cwd"> = {}): Promise<{ ir: ServerIR; warnings: Diagnostic[] }> {
  const config = resolveConfig({ ...options, cache: false });
  const findings = new Findings();
  const { sources } = findings.gate(await load(config.schemasDir, config.cwd));
  if (!sources || findings.errors.length) throw findings.fail();
  const ir = await analyze(sources, findings);
  return { ir, warnings: sortDiagnostics(findings.warnings) };
}

/** One entry of what a server declares, as the `*\/list` requests send it, with the schema file it comes from. */
export interface Declared<T> {
  wire: T;
  file: string;
}

/** What a schemas folder declares on the wire (hidden tools left out), for tools that read it such as `lint` and `diff`. */
export interface Surface {
  tools: Declared<import("@mcpgen/runtime").WireTool>[];
  resources: Declared<import("@mcpgen/runtime").WireResource>[];
  resourceTemplates: Declared<import("@mcpgen/runtime").WireResourceTemplate>[];
  prompts: Declared<import("@mcpgen/runtime").WirePrompt>[];
}

/** Loads, checks and normalizes a schemas folder and returns its wire surface; writes nothing. Throws `DiagnosticError`. */
export async function surface(options: Pick<BuildOptions, "schemas" | "cwd"> = {}): Promise<Surface> {
  const { ir } = await compileIr(options);
  const first = (sources: string[]) => sources[0] ?? "";
  return {
    tools: ir.tools.filter((t) => !t.hidden).map((t) => ({ wire: t.wire, file: first(t.sources) })),
    resources: ir.resources.map((r) => ({ wire: r.wire, file: first(r.sources) })),
    resourceTemplates: ir.templates.map((t) => ({ wire: t.wire, file: first(t.sources) })),
    prompts: ir.prompts.map((p) => ({ wire: p.wire, file: first(p.sources) })),
  };
}
export type { ToolExample } from "./check.js";
