/**
 * normalize: resolve every `$ref` (local, cross-file, shared definitions) at build time and merge the
 * manifest's hints into each tool. In: `Checked`. Out: per tool a self-contained wire `inputSchema` /
 * `outputSchema` (`bundle.ts`: only the definitions it reaches, flat under `$defs`, root `$ref` inlined so
 * the root keeps its `"type": "object"`) and ref-free type units for json-schema-to-typescript, plus
 * diagnostics. Refs resolve in `refs.ts`; type units are named in `units.ts`.
 */
import { bundle, type Origin, type Root } from "./bundle.js";
import { jsonDigest } from "./cache.js";
import type { Checked, CheckedTool } from "./check.js";
import { isWarning, type Diagnostic } from "./diagnostics.js";
import type { Hints } from "./meta-schemas.js";
import { typeName } from "./names.js";
import { normalizePrimitives, type NormalizedPrimitives } from "./normalize-primitives.js";
import { RefResolver } from "./refs.js";
import type { SchemaNode, TypeUnit } from "./schema-walk.js";
import { TypeUnits, type KeptUnits } from "./units.js";

/** A named TypeScript type to generate, from a schema whose `$ref`s are already replaced by type names. */
export type { TypeUnit } from "./schema-walk.js";

export interface NormalizedTool {
  tool: CheckedTool;
  /**
   * A digest of everything the tool's normalized form and IR are made from: its file (path and bytes), its
   * dialect and hints, and every defs file. Work per tool after this stage can be kept by it.
   */
  digest: string;
  annotations: Hints;
  inputSchema: SchemaNode;
  outputSchema: SchemaNode | undefined;
  inputType: string;
  outputType: string | undefined;
  /** Every defs/ file the tool's schemas use. */
  uses: string[];
  /** Per schema, where each definition copied from a defs file comes from, by its name under `$defs`. */
  origins: { input: Record<string, Origin>; output: Record<string, Origin> };
}

export interface Normalized {
  tools: NormalizedTool[];
  primitives: NormalizedPrimitives;
  /** Every type to generate: tools, their ref targets, template variables and prompt arguments. */
  typeUnits: TypeUnit[];
}

/**
 * A tool as normalize made it, kept between builds by the tool's digest (see `NormalizeMemo`): its wire
 * schemas as `bundle` made them, and the type units cut from its own schemas (`TypeUnits.ownUnits`).
 */
export interface Bundled {
  input: SchemaNode;
  output: SchemaNode | undefined;
  uses: string[];
  origins: NormalizedTool["origins"];
  units: KeptUnits;
}

/**
 * What earlier builds normalized, by the tool's digest: a tool whose file and defs are as they were is not
 * resolved, bundled or cut into type units again (only tools that gave no diagnostic at all are
 * remembered). It is JSON, so what is remembered prints the same bytes. The names of the type units are
 * decided over all of them in every build.
 */
export interface NormalizeMemo {
  get(digest: string): Bundled | undefined;
  set(digest: string, bundled: Bundled): void;
}

export function normalize(checked: Checked, memo?: NormalizeMemo): { normalized: Normalized; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const errors = () => diagnostics.filter((d) => !isWarning(d)).length;
  const refs = new RefResolver(checked.defs, diagnostics);
  const units = new TypeUnits(refs);
  const resolve = refs.resolve.bind(refs);
  const defs = jsonDigest(checked.defs.map((d) => [d.doc.url, d.doc.file, d.doc.digest, d.dialect]));

  const tools: NormalizedTool[] = [];
  const remember: { digest: string; name: string; bundled: Omit<Bundled, "units"> }[] = [];
  for (const tool of checked.tools) {
    const file = tool.file;
    const base = typeName(file.name);
    const digest = jsonDigest([file.doc.url, file.doc.file, file.doc.digest, tool.dialect, tool.hints, defs]);
    const rootOf = (which: "input" | "output", schema: unknown): Root => ({ key: `tool:${file.name}:${which}`, schema, url: file.doc.url, file: file.doc.file, at: `/${which}Schema` });
    const kept = memo?.get(digest);
    if (kept) {
      units.keep(kept.units);
      tools.push({ tool, digest, annotations: tool.hints, inputSchema: kept.input, outputSchema: kept.output, inputType: `${base}Input`, outputType: kept.output ? `${base}Output` : undefined, uses: kept.uses, origins: kept.origins });
      continue;
    }
    const before = diagnostics.length;
    const uses = new Set<string>();
    const origins: NormalizedTool["origins"] = { input: {}, output: {} };
    const make = (which: "input" | "output"): SchemaNode | undefined => {
      const schema = which === "input" ? file.inputSchema : file.outputSchema;
      if (schema === undefined) return undefined;
      const root = rootOf(which, schema);
      // Every ref the file holds must resolve, reached or not; the wire schema carries only those reached.
      const unresolved = errors();
      refs.resolveAll(root);
      if (errors() !== unresolved) return undefined;
      const wire = bundle(root, tool.dialect, which, { resolve, docRoot: (doc) => (doc === root.key ? root : refs.defRoot(doc)!), uses, diagnostics }, origins[which]);
      if (wire && wire.type !== "object")
        diagnostics.push({
          file: file.doc.file,
          pointer: root.at,
          message: `${which}Schema must be an object schema: declare "type": "object" at its root${wire.type === undefined ? "" : ` (found ${JSON.stringify(wire.type)})`}`,
        });
      units.addRoot(root, `${base}${which === "input" ? "Input" : "Output"}`);
      return wire;
    };
    const input = make("input");
    const output = make("output");
    if (diagnostics.slice(before).some((d) => !isWarning(d)) || !input) continue;
    // Remembered as JSON (what a later build reads back), and only when there was nothing to say.
    if (diagnostics.length === before && memo) remember.push({ digest, name: file.name, bundled: { input, output, uses: [...uses].sort(), origins } });
    tools.push({
      tool,
      digest,
      annotations: tool.hints,
      inputSchema: input,
      outputSchema: output,
      inputType: `${base}Input`,
      outputType: output ? `${base}Output` : undefined,
      uses: [...uses].sort(),
      origins,
    });
  }
  for (const d of checked.defs) refs.resolveAll(refs.defRoot(d.doc.url)!);
  const primitives = normalizePrimitives(checked.primitives);
  if (errors()) return { normalized: { tools: [], primitives, typeUnits: [] }, diagnostics };
  const typeUnits = [...units.build(), ...primitives.typeUnits];
  for (const { digest, name, bundled } of remember) memo!.set(digest, { ...bundled, units: units.ownUnits(name) });
  return { normalized: { tools, primitives, typeUnits }, diagnostics };
}
