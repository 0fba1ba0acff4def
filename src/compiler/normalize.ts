/**
 * normalize: resolve every `$ref` (local, cross-file, shared definitions) at build time and merge the
 * manifest's hints into each tool. In: `Checked`. Out: per tool a self-contained wire `inputSchema` /
 * `outputSchema` (`bundle.ts`: only the definitions it reaches, flat under `$defs`, root `$ref` inlined so
 * the root keeps its `"type": "object"`) and ref-free type units for json-schema-to-typescript, plus
 * diagnostics.
 *
 * Refs resolve against file paths: inside `inputSchema`/`outputSchema`, `#/...` points into that schema;
 * `../defs/x.json#/...` points into a file in `defs/` (or into a defs file by its root `$id`).
 */
import type { Dialect } from "./ajv.js";
import type { Checked, CheckedTool } from "./check.js";
import { isWarning, pointerGet, pointerJoin, pointerParse, type Diagnostic } from "./diagnostics.js";
import type { SourceDoc } from "./load.js";
import type { Hints } from "./meta-schemas.js";
import { typeName } from "./names.js";
import { normalizePrimitives, type NormalizedPrimitives } from "./normalize-primitives.js";
import { walkSchema, type SchemaNode, type TypeUnit } from "./schema-walk.js";
import { requireAppliedDefaults } from "./defaults.js";
import { bundle, fileStem, type Root, type Target } from "./bundle.js";

/** A named TypeScript type to generate, from a schema whose `$ref`s are already replaced by type names. */
export type { TypeUnit } from "./schema-walk.js";

export interface NormalizedTool {
  tool: CheckedTool;
  annotations: Hints;
  inputSchema: SchemaNode;
  outputSchema: SchemaNode | undefined;
  inputType: string;
  outputType: string | undefined;
  /** Every defs/ file the tool's schemas use. */
  uses: string[];
}

export interface Normalized {
  tools: NormalizedTool[];
  primitives: NormalizedPrimitives;
  /** Every type to generate: tools, their ref targets, template variables and prompt arguments. */
  typeUnits: TypeUnit[];
}

export function normalize(checked: Checked): { normalized: Normalized; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const errors = () => diagnostics.filter((d) => !isWarning(d)).length;
  const defs = new Map<string, { doc: SourceDoc; dialect: Dialect }>();
  for (const d of checked.defs) {
    defs.set(d.doc.url, d);
    const id = (d.doc.value as { $id?: unknown }).$id;
    if (typeof id === "string") defs.set(id.replace(/#$/, ""), d);
  }
  const defRoot = (url: string): Root | undefined => {
    const d = defs.get(url);
    return d && { key: d.doc.url, schema: d.doc.value, url: d.doc.url, file: d.doc.file, at: "" };
  };

  /** Resolves a ref found in `root`; reports and returns undefined when it points nowhere. */
  const resolve = (root: Root, ref: string, site: string): Target | undefined => {
    const fail = (why: string) => {
      diagnostics.push({ file: root.file, pointer: pointerJoin(site, "$ref"), message: `cannot resolve ${JSON.stringify(ref)}: ${why}` });
      return undefined;
    };
    let pointer: string | undefined;
    let target: Root | undefined;
    if (ref.startsWith("#")) {
      target = root;
      pointer = decodeFragment(ref.slice(1));
    } else {
      let url: URL;
      try {
        url = new URL(ref, root.url);
      } catch {
        return fail("not a valid URI reference");
      }
      pointer = decodeFragment(url.hash.slice(1));
      url.hash = "";
      target = defRoot(url.href);
      if (!target) {
        if (url.protocol !== "file:") return fail("remote references are not fetched: copy the schema into defs/");
        return fail("no such file in defs/ (cross-file references must point into the defs/ folder)");
      }
    }
    if (pointer === undefined) return fail("its fragment is not valid percent-encoding (a % must start an escape of UTF-8 bytes, such as %20)");
    if (pointer !== "" && !pointer.startsWith("/")) {
      // A plain-name fragment names an `$anchor` in the target document: refs are rewritten to its pointer.
      const found = anchors(target.schema).get(pointer);
      if (found === undefined) return fail(`no $anchor "${pointer}" in ${target.file}`);
      pointer = found;
    }
    if (pointerGet(target.schema, pointer) === undefined) return fail(`${pointer} does not exist in ${target.file}`);
    return { doc: target.key, pointer };
  };

  // Type units: one per tool input/output plus one per distinct `$ref` target, found by a worklist.
  const units = new Map<string, { name: string; root: Root; pointer: string; preferred: string; fallback: string }>();
  const unitKey = (t: Target) => `${t.doc}#${t.pointer}`;

  const tools: NormalizedTool[] = [];
  for (const tool of checked.tools) {
    const file = tool.file;
    const base = typeName(file.name);
    const before = errors();
    const uses = new Set<string>();
    const make = (which: "input" | "output"): { wire: SchemaNode; root: Root } | undefined => {
      const schema = which === "input" ? file.inputSchema : file.outputSchema;
      if (schema === undefined) return undefined;
      const root: Root = { key: `tool:${file.name}:${which}`, schema, url: file.doc.url, file: file.doc.file, at: `/${which}Schema` };
      // Every ref the file holds must resolve, reached or not; the wire schema carries only those reached.
      const unresolved = errors();
      walkSchema(schema, root.at, (node, site) => typeof node.$ref === "string" && resolve(root, node.$ref, site));
      if (errors() !== unresolved) return undefined;
      const wire = bundle(root, tool.dialect, which, { resolve, docRoot: (doc) => (doc === root.key ? root : defRoot(doc)!), uses, diagnostics });
      if (wire && wire.type !== "object")
        diagnostics.push({
          file: file.doc.file,
          pointer: root.at,
          message: `${which}Schema must be an object schema: declare "type": "object" at its root${wire.type === undefined ? "" : ` (found ${JSON.stringify(wire.type)})`}`,
        });
      units.set(unitKey({ doc: root.key, pointer: "" }), { name: "", root, pointer: "", preferred: `${base}${which === "input" ? "Input" : "Output"}`, fallback: "" });
      return wire && { wire, root };
    };
    const input = make("input");
    const output = make("output");
    if (errors() !== before || !input) continue;
    tools.push({
      tool,
      annotations: tool.hints,
      inputSchema: input.wire,
      outputSchema: output?.wire,
      inputType: `${base}Input`,
      outputType: output ? `${base}Output` : undefined,
      uses: [...uses].sort(),
    });
  }
  for (const d of checked.defs) {
    const root = defRoot(d.doc.url)!;
    walkSchema(root.schema, "", (node, site) => typeof node.$ref === "string" && resolve(root, node.$ref, site));
  }
  const primitives = normalizePrimitives(checked.primitives);
  if (errors()) return { normalized: { tools: [], primitives, typeUnits: [] }, diagnostics };

  // Discover every ref target reachable from the tool roots; each becomes a named type.
  const queue = [...units.values()];
  while (queue.length) {
    const unit = queue.pop()!;
    walkSchema(pointerGet(unit.root.schema, unit.pointer), unit.root.at + unit.pointer, (node, site) => {
      if (typeof node.$ref !== "string") return;
      const target = resolve(unit.root, node.$ref, site);
      if (!target || units.has(unitKey(target))) return;
      const root = target.doc.startsWith("tool:") ? unit.root : defRoot(target.doc)!;
      const last = pointerParse(target.pointer).at(-1);
      const stem = target.doc.startsWith("tool:") ? units.get(unitKey({ doc: target.doc, pointer: "" }))!.preferred : typeName(fileStem(root.file));
      const preferred = target.doc.startsWith("tool:") ? stem + typeName(last ?? "") : last ? typeName(last) : stem;
      const next = { name: "", root, pointer: target.pointer, preferred, fallback: last ? stem + typeName(last) : stem };
      units.set(unitKey(target), next);
      queue.push(next);
    });
  }
  assignNames([...units.values()]);

  const typeUnits: TypeUnit[] = [...units.values()].map((unit) => {
    const schema = typeSchema(pointerGet(unit.root.schema, unit.pointer), unit.pointer === "" ? unit.root.at : unit.root.at + unit.pointer, (ref, site) => {
      const target = resolve(unit.root, ref, site)!;
      return units.get(unitKey(target))!.name;
    });
    // The handler gets its input with defaults filled in (defaults.ts): those properties are present.
    if (unit.pointer === "" && unit.root.key.endsWith(":input") && typeof schema !== "boolean") requireAppliedDefaults(schema);
    return { name: unit.name, schema };
  });
  return { normalized: { tools, primitives, typeUnits: [...typeUnits, ...primitives.typeUnits] }, diagnostics };
}

/** Names units by their preferred name; clashing ones fall back to a longer name, then a number. */
function assignNames(units: { name: string; preferred: string; fallback: string; root: Root; pointer: string }[]): void {
  const count = new Map<string, number>();
  for (const u of units) count.set(u.preferred, (count.get(u.preferred) ?? 0) + 1);
  const taken = new Set<string>();
  const ordered = [...units].sort((a, b) => (a.root.key + "#" + a.pointer < b.root.key + "#" + b.pointer ? -1 : 1));
  // Tool roots first: their names are part of the handler contract and never change.
  for (const u of ordered) if (u.pointer === "" && u.root.key.startsWith("tool:")) taken.add((u.name = u.preferred));
  for (const u of ordered) {
    if (u.name) continue;
    let name = count.get(u.preferred) === 1 && !taken.has(u.preferred) ? u.preferred : u.fallback || u.preferred;
    for (let i = 2; taken.has(name); i++) name = `${u.fallback || u.preferred}${i}`;
    taken.add((u.name = name));
  }
}

/** A copy for json-schema-to-typescript: refs become named types (`tsType`), nested titles go. */
function typeSchema(schema: unknown, at: string, refName: (ref: string, site: string) => string): SchemaNode | boolean {
  if (typeof schema === "boolean") return schema;
  const copy = structuredClone(schema) as SchemaNode;
  walkSchema(copy, at, (node, site) => {
    if (node !== copy) delete node.title;
    delete node.$defs;
    delete node.definitions;
    delete node.$schema;
    delete node.$id;
    if (typeof node.$ref === "string") {
      node.tsType = refName(node.$ref, site);
      delete node.$ref;
    }
  });
  return copy;
}

const anchorCache = new WeakMap<object, Map<string, string>>();

/** The `$anchor`s of a document, by name, with their JSON pointers. */
function anchors(schema: unknown): Map<string, string> {
  if (schema === null || typeof schema !== "object") return new Map();
  let found = anchorCache.get(schema);
  if (!found) {
    const map = new Map<string, string>();
    walkSchema(schema, "", (node, pointer) => {
      if (typeof node.$anchor === "string" && !map.has(node.$anchor)) map.set(node.$anchor, pointer);
    });
    anchorCache.set(schema, (found = map));
  }
  return found;
}

/** A URI fragment, percent-decoded; undefined when it is no valid percent-encoding of UTF-8. */
function decodeFragment(fragment: string): string | undefined {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return undefined;
  }
}
