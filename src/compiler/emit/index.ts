/**
 * emit: every output file, rendered into an in-memory file set. In: `ServerIR` + config. Out: the files
 * of the output folder (relative paths → contents), one handler stub per tool, and diagnostics from
 * compiling validators and checking examples.
 *
 * A tool's two validator files are keyed by everything they are made from. Given the keys of the output
 * files left untouched since the last build (from its stamp), a tool whose key is unchanged is neither
 * read from the cache (where its entry is kept) nor rendered: its files are reported `untouched`, to be
 * kept as they are.
 */
import path from "node:path";
import { jsonDigest, type Cache } from "../cache.js";
import { rel, type BuildConfig } from "../config.js";
import type { Diagnostic } from "../diagnostics.js";
import type { ServerIR, ToolIR } from "../ir.js";
import { compileAll } from "./parallel.js";
import { compileModule, compileShared, moduleKeyOf, requestDigest, sharedKey, toolRequest, type Request, type ValidatorModule } from "./validators.js";
import { planShared } from "./shared.js";
import { registryView } from "./registry.js";
import { hasAppliedDefaults } from "../defaults.js";
import { clientView } from "./client.js";
import { jsonText, render, type Code } from "./render.js";

/** A named export of a validator module, with its doc comment. */
type Export = { name: string; doc: string };

export interface Emitted {
  /** Output-folder files by path relative to it (forward slashes), sorted. */
  files: Map<string, string>;
  /** Output-folder files that are already what this build would write (not in `files`). */
  untouched: Set<string>;
  /** What output files were made from, by path: for the next build's `untouched`. */
  keys: Map<string, string>;
  /** Handler stubs by absolute path, rendered when asked: created only where no file exists (most builds, none). */
  stubs: Map<string, () => string>;
  diagnostics: Diagnostic[];
}

export async function emit(
  ir: ServerIR,
  config: BuildConfig,
  cache: Cache,
  version: string,
  /** Keys of the output files untouched since the last build, by path. */
  previous: ReadonlyMap<string, string> = new Map(),
  /**
   * The cache key of what emit keeps by a digest of what it is made from (a tool's IR digest, a rendered
   * file's view); it must cover mcpgen's own code (the printing), which the cache's fingerprint does not all
   * cover. Without it, nothing is kept.
   */
  keepKey?: (digest: string) => string,
): Promise<Emitted> {
  const files = new Map<string, string>();
  const untouched = new Set<string>();
  const keys = new Map<string, string>();
  const diagnostics: Diagnostic[] = [];
  const header = (sources: string[]) => ({
    version,
    sources: sources.length <= 4 ? sources.join(", ") : `${rel(config, config.schemasDir)}/ (${sources.length} files)`,
  });
  const importPath = (from: string, to: string) => {
    const r = path.relative(from, to).split(path.sep).join("/");
    return r.startsWith(".") ? r : "./" + r;
  };

  /** `render`, kept in the cache by a digest of the whole view (the template is mcpgen's code: see `keepKey`). */
  const renderKept = (name: string, view: object): string => {
    const key = keepKey?.(jsonDigest([name, view]));
    const kept = key === undefined ? undefined : cache.get(key);
    if (kept !== undefined) return kept;
    const out = render(name, view);
    if (key !== undefined) cache.set(key, out);
    return out;
  };
  const validatorFile = (base: string, subject: string, module: ValidatorModule, exports: Export[], sources: string[]) => {
    const view = { ...header(sources), subject, exports };
    files.set(`${base}.gen.js`, render("validator.gen.js", { ...view, imports: module.imports, body: { code: module.body } }));
    files.set(`${base}.gen.d.ts`, render("validator.gen.d.ts", view));
  };
  // Per tool: what its validator module is made from, the module's cache key, and the key of its two
  // files; tools whose files are kept as the last build left them go no further.
  const toCompile: { tool: ToolIR; base: string; exports: Export[]; request: Request; key: string }[] = [];
  // Definitions of defs files that tools reach are compiled once, in a module per file (shared.ts).
  const shared = planShared(ir.tools);
  for (const request of shared.modules) {
    const exports = Object.keys(request.exports).map((name) => ({ name, doc: `${name.endsWith("$defaults") ? "with its defaults applied, " : ""}the definition ${request.exports[name]!.name} of ${request.file}` }));
    const key = sharedKey(request);
    const filesKey = jsonDigest([key, header([request.file]), exports]);
    const { base } = request;
    for (const file of [`${base}.gen.js`, `${base}.gen.d.ts`]) keys.set(file, filesKey);
    if (previous.get(`${base}.gen.js`) === filesKey && previous.get(`${base}.gen.d.ts`) === filesKey) {
      untouched.add(`${base}.gen.js`).add(`${base}.gen.d.ts`);
      cache.keep(key);
      continue;
    }
    const { module, diagnostics: found } = compileShared(request, cache, key);
    diagnostics.push(...found);
    if (module) validatorFile(base, `the shared definitions of ${request.file}`, module, exports, [request.file]);
  }
  // What a tool's emit makes of its IR alone, kept by the IR's digest: the digest of its validator request
  // (its calls left out) and its registry entry's wire metadata, printed. Only tools without diagnostics.
  const printed: Code[] = [];
  for (const tool of ir.tools) {
    const calls = shared.calls.get(tool.name);
    const memoKey = keepKey?.(tool.digest);
    const kept = memoKey === undefined ? undefined : cache.get(memoKey);
    let request: Request | undefined;
    let made: { request: string; wire: string };
    // Kept as the request digest (hex), a line break, and the printed entry as it is: no JSON to decode.
    if (kept !== undefined) made = { request: kept.slice(0, kept.indexOf("\n")), wire: kept.slice(kept.indexOf("\n") + 1) };
    else {
      const { request: fresh, diagnostics: found } = toolRequest(tool, calls);
      diagnostics.push(...found);
      const wire = jsonText(tool.wire);
      if (!fresh) {
        printed.push({ code: wire });
        continue;
      }
      request = fresh;
      made = { request: requestDigest(fresh), wire };
      if (memoKey !== undefined) cache.set(memoKey, `${made.request}\n${made.wire}`);
    }
    printed.push({ code: made.wire });
    const exports: Export[] = [{ name: "input", doc: `the arguments of tool ${tool.name}` }];
    if (tool.outputType) exports.push({ name: "output", doc: `the structured output of tool ${tool.name}` });
    const base = `validators/${tool.name}`;
    const key = moduleKeyOf(made.request, calls);
    const filesKey = jsonDigest([key, header(tool.sources), exports]);
    for (const file of [`${base}.gen.js`, `${base}.gen.d.ts`]) keys.set(file, filesKey);
    if (previous.get(`${base}.gen.js`) === filesKey && previous.get(`${base}.gen.d.ts`) === filesKey) {
      untouched.add(`${base}.gen.js`).add(`${base}.gen.d.ts`);
      cache.keep(key);
    } else toCompile.push({ tool, base, exports, request: request ?? toolRequest(tool, calls).request!, key });
  }
  const compiled = await compileAll({ modules: toCompile.map(({ request, key }) => ({ request, key })), units: ir.typeUnits }, cache, config.jobs);
  for (const [i, { tool, base, exports }] of toCompile.entries()) {
    const { module, diagnostics: found } = compiled.validators[i]!;
    diagnostics.push(...found);
    if (module) validatorFile(base, `tool ${tool.name}`, module, exports, tool.sources);
  }
  for (const [kind, items, exportName] of [
    ["resources", ir.templates, "variables"],
    ["prompts", ir.prompts, "args"],
  ] as const) {
    for (const item of items) {
      const at = kind === "resources" ? "/variables" : "/arguments";
      const { module, diagnostics: found } = compileModule(
        {
          file: item.sources[0]!,
          dialect: item.dialect,
          schemas: { [exportName]: { schema: item.schema, at } },
          coerce: true,
          ...(hasAppliedDefaults(item.schema) && { defaults: exportName }),
        },
        cache,
      );
      diagnostics.push(...found);
      const what = kind === "resources" ? `resource template ${item.name}` : `prompt ${item.name}`;
      if (module) validatorFile(`validators/${kind}/${item.name}`, what, module, [{ name: exportName, doc: `the ${exportName === "args" ? "arguments" : exportName} of ${what}` }], item.sources);
    }
  }

  files.set("types.gen.ts", render("types.gen.ts", { ...header(ir.sources), units: compiled.types }));

  const handlersImport = importPath(config.outDir, config.handlersDir);
  const primitives = ir.resources.length + ir.templates.length + ir.prompts.length > 0;
  const describe = (kind: string, item: { name: string; wire: { description?: string } }) =>
    `Handler of ${kind} "${item.name}"${item.wire.description ? `: ${item.wire.description}` : "."}`;
  const completed = (c: Record<string, unknown>) => Object.keys(c).filter((k) => c[k] === "handler");
  /** The handler contract of a template or a prompt: typed arguments, and completions when declared. */
  const withArguments = (
    label: string,
    suffix: "Resource" | "Prompt",
    item: { name: string; typeName: string; wire: { description?: string }; completions: Record<string, unknown> },
    argsType: string,
    dir: string,
    template: string,
  ) => ({
    name: item.name,
    doc: describe(label, item),
    handlerType: `${item.typeName}${suffix}Handler`,
    argsType,
    completionsType: completed(item.completions).length ? `${item.typeName}${suffix}Completions` : (false as const),
    completed: completed(item.completions),
    file: `${dir}/${item.name}.ts`,
    template,
    kind: label[0]!.toUpperCase() + label.slice(1),
  });
  const contract = {
    tools: ir.tools.map((t) => ({
      name: t.name,
      doc: describe("tool", t),
      handlerType: `${t.typeName}Handler`,
      inputType: t.inputType,
      outputType: t.outputType ?? false,
      file: `${t.name}.ts`,
      template: "handler.ts",
      kind: "Tool",
    })),
    resources: ir.resources
      .filter((r) => !r.contents)
      .map((r) => ({ name: r.name, doc: describe("resource", r), handlerType: `${r.typeName}ResourceHandler`, file: `resources/${r.name}.ts`, template: "resource-handler.ts", kind: "Resource" })),
    templates: ir.templates.map((t) => withArguments("resource template", "Resource", t, t.variablesType, "resources", "template-handler.ts")),
    prompts: ir.prompts.map((p) => withArguments("prompt", "Prompt", p, p.argumentsType, "prompts", "prompt-handler.ts")),
  };
  const handlerImport = (file: string) => `${handlersImport}/${file.replace(/\.ts$/, ".js")}`;
  files.set("registry.gen.ts", render("registry.gen.ts", { ...header(ir.sources), ...registryView(ir, contract, handlerImport, printed) }));
  // The handler contract changes only when a name, a type or a description does, not with most edits.
  files.set("handlers.gen.ts", renderKept("handlers.gen.ts", { ...header(ir.sources), primitives, ...contract }));
  files.set("server.gen.ts", render("server.gen.ts", header(ir.sources)));
  if (config.client) files.set("client.gen.ts", render("client.gen.ts", { ...header(ir.sources), ...clientView(ir) }));

  const stubs = new Map<string, () => string>();
  for (const item of [...contract.tools, ...contract.resources, ...contract.templates, ...contract.prompts]) {
    const file = path.join(config.handlersDir, item.file);
    stubs.set(file, () =>
      render(item.template, {
        ...item,
        contractFile: rel(config, path.join(config.outDir, "handlers.gen.ts")),
        contractImport: importPath(path.dirname(file), config.outDir) + "/handlers.gen.js",
        notImplemented: `${item.kind} "${item.name}" is not implemented yet: edit ${rel(config, file)}.`,
      }),
    );
  }
  return { files: new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1))), untouched, keys, stubs, diagnostics };
}
