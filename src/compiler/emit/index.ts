/**
 * emit: every output file, rendered into an in-memory file set. In: `ServerIR` + config. Out: the files
 * of the output folder (relative paths → contents), one handler stub per tool, and diagnostics from
 * compiling validators and checking examples.
 */
import path from "node:path";
import type { Cache } from "../cache.js";
import { rel, type BuildConfig } from "../config.js";
import type { Diagnostic } from "../diagnostics.js";
import type { ServerIR } from "../ir.js";
import { emitTypeUnits } from "./types.js";
import { emitValidator } from "./validators.js";
import { jsonLiteral, render } from "./render.js";

export interface Emitted {
  /** Output-folder files by path relative to it (forward slashes), sorted. */
  files: Map<string, string>;
  /** Handler stubs by absolute path; created only where no file exists. */
  stubs: Map<string, string>;
  diagnostics: Diagnostic[];
}

export async function emit(ir: ServerIR, config: BuildConfig, cache: Cache, version: string): Promise<Emitted> {
  const files = new Map<string, string>();
  const diagnostics: Diagnostic[] = [];
  const header = (sources: string[]) => ({
    version,
    sources: sources.length <= 4 ? sources.join(", ") : `${rel(config, config.schemasDir)}/ (${sources.length} files)`,
  });
  const importPath = (from: string, to: string) => {
    const r = path.relative(from, to).split(path.sep).join("/");
    return r.startsWith(".") ? r : "./" + r;
  };

  for (const tool of ir.tools) {
    const { module, diagnostics: found } = emitValidator(tool, cache);
    diagnostics.push(...found);
    if (!module) continue;
    const view = { ...header(tool.sources), tool: tool.name, hasOutput: tool.outputType !== undefined };
    files.set(`validators/${tool.name}.gen.js`, render("validator.gen.js", { ...view, imports: module.imports, body: { code: module.body } }));
    files.set(`validators/${tool.name}.gen.d.ts`, render("validator.gen.d.ts", view));
  }

  const units = await emitTypeUnits(ir.typeUnits, cache);
  files.set("types.gen.ts", render("types.gen.ts", { ...header(ir.sources), units }));

  const listed = ir.tools.filter((t) => !t.hidden);
  const hidden = ir.tools.filter((t) => t.hidden);
  const handlersImport = importPath(config.outDir, config.handlersDir);
  files.set(
    "registry.gen.ts",
    render("registry.gen.ts", {
      ...header(ir.sources),
      toolsListJson: jsonLiteral(listed.map((t) => t.wire)),
      hiddenJson: jsonLiteral(hidden.map((t) => t.wire)),
      server: ir.server,
      instructions: ir.instructions ?? false,
      tools: ir.tools.map((t) => ({
        name: t.name,
        hidden: t.hidden,
        index: (t.hidden ? hidden : listed).indexOf(t),
        validatorImport: `./validators/${t.name}.gen.js`,
        handlerImport: `${handlersImport}/${t.name}.js`,
      })),
    }),
  );

  const contract = ir.tools.map((t) => ({
    name: t.name,
    doc: `Handler of tool "${t.name}"${t.wire.description ? `: ${t.wire.description}` : "."}`,
    handlerType: `${t.typeName}Handler`,
    inputType: t.inputType,
    outputType: t.outputType ?? false,
  }));
  files.set("handlers.gen.ts", render("handlers.gen.ts", { ...header(ir.sources), tools: contract }));
  files.set("server.gen.ts", render("server.gen.ts", header(ir.sources)));

  const stubs = new Map<string, string>();
  const contractImport = importPath(config.handlersDir, config.outDir) + "/handlers.gen.js";
  for (const [i, t] of ir.tools.entries()) {
    const file = path.join(config.handlersDir, `${t.name}.ts`);
    stubs.set(
      file,
      render("handler.ts", {
        ...contract[i]!,
        contractFile: rel(config, path.join(config.outDir, "handlers.gen.ts")),
        contractImport,
        notImplemented: `Tool "${t.name}" is not implemented yet: edit ${rel(config, file)}.`,
      }),
    );
  }
  return { files: new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1))), stubs, diagnostics };
}
