/**
 * mcpgen's compiler: schemas/ → load → check → normalize → IR → emit → write.
 * `build()` is the whole pipeline; each stage lives in its own module (see ARCHITECTURE.md).
 */
import { readFileSync } from "node:fs";
import { cacheKey, openCache } from "./cache.js";
import type { CheckMemo } from "./check.js";
import { configProblems, resolveConfig, type BuildConfig, type BuildOptions } from "./config.js";
import { DiagnosticError, isWarning, sortDiagnostics, type Diagnostic } from "./diagnostics.js";
import { load, type SourceDoc } from "./load.js";
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

/** Compiles a schemas folder. Throws `DiagnosticError` (with every problem) before writing anything. */
export async function build(options: BuildOptions = {}): Promise<BuildResult> {
  const config = resolveConfig(options);
  const problems = configProblems(config);
  if (problems.length) throw new OutputError(problems.join("\n"));
  // Errors stop the build (after the stage that found them); warnings are reported with the result.
  const diagnostics: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  const gate = <T>(result: T & { diagnostics: Diagnostic[] }): T => {
    for (const d of result.diagnostics) (isWarning(d) ? warnings : diagnostics).push(d);
    return result;
  };
  const fail = () => new DiagnosticError([...diagnostics, ...warnings]);

  const { sources } = gate(await load(config.schemasDir, config.cwd));
  const input = sources && !diagnostics.length ? inputDigest(sources.digest, config) : undefined;
  const last = input ? lastBuild(config, input) : undefined;
  if (last?.upToDate) {
    const { counts, handlers, warnings: found = [] } = last.upToDate;
    const warnings = sortDiagnostics([...found, ...leftBehind(handlers, config)]);
    return { mode: "write", config, counts, warnings, updated: [], removed: [], createdHandlers: [] };
  }

  // The stages that need ajv, json-schema-to-typescript and handlebars load only when there is work.
  const [{ check }, { normalize }, { toIR }, { emit }] = await Promise.all([
    import("./check.js"),
    import("./normalize.js"),
    import("./ir.js"),
    import("./emit/index.js"),
  ]);
  const cache = openCache(config.cacheDir);
  const checkedKey = (doc: SourceDoc) => cacheKey("checked", codeDigest(), doc.rel, doc.digest);
  const memo: CheckMemo = { passed: (doc) => cache.get(checkedKey(doc)) !== undefined, pass: (doc) => cache.set(checkedKey(doc), "") };
  const { checked } = sources ? gate(check(sources, memo)) : { checked: undefined };
  const { normalized } = checked ? gate(normalize(checked)) : { normalized: undefined };
  if (diagnostics.length || !checked || !normalized) throw fail();
  const ir = toIR(checked, normalized);
  const emitted = gate(await emit(ir, config, cache, VERSION, last?.untouched));
  cache.save(); // what compiled is worth keeping even when an example failed
  if (diagnostics.length) throw fail();

  const counts = { tools: ir.tools.length, resources: ir.resources.length + ir.templates.length, prompts: ir.prompts.length };
  if (config.check) {
    const comparison = compareOutput(emitted, config);
    const upToDate = [comparison.changed, comparison.missing, comparison.extra, comparison.missingHandlers, comparison.leftBehindHandlers].every((list) => !list.length);
    return { mode: "check", config, counts, warnings: sortDiagnostics(warnings), upToDate, ...comparison };
  }
  const written = write(emitted, config);
  if (input) saveStamp(config, { input, counts, handlers: [...emitted.stubs.keys()], warnings: sortDiagnostics(warnings) }, emitted, last?.found);
  return { mode: "write", config, counts, warnings: sortDiagnostics([...warnings, ...leftBehind(emitted.stubs.keys(), config)]), ...written };
}

export type { ServerIR, ToolIR, ResourceIR, TemplateIR, PromptIR } from "./ir.js";

/**
 * The server as the compiler sees it, for tools that read it rather than build it (`mcpgen docs`):
 * load → check → normalize → IR, nothing emitted or written. Throws `DiagnosticError` on any error.
 */
export async function compileIr(options: Pick<BuildOptions, "schemas" | "cwd"> = {}): Promise<{ ir: import("./ir.js").ServerIR; warnings: Diagnostic[] }> {
  const config = resolveConfig({ ...options, cache: false });
  const diagnostics: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  const gate = <T>(result: T & { diagnostics: Diagnostic[] }): T => {
    for (const d of result.diagnostics) (isWarning(d) ? warnings : diagnostics).push(d);
    return result;
  };
  const [{ check }, { normalize }, { toIR }] = await Promise.all([import("./check.js"), import("./normalize.js"), import("./ir.js")]);
  const { sources } = gate(await load(config.schemasDir, config.cwd));
  const { checked } = sources && !diagnostics.length ? gate(check(sources)) : { checked: undefined };
  const { normalized } = checked && !diagnostics.length ? gate(normalize(checked)) : { normalized: undefined };
  if (diagnostics.length || !checked || !normalized) throw new DiagnosticError([...diagnostics, ...warnings]);
  return { ir: toIR(checked, normalized), warnings: sortDiagnostics(warnings) };
}
