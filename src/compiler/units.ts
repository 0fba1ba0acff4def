/**
 * Type units: the named TypeScript types json-schema-to-typescript generates — one per tool input and
 * output, and one per distinct `$ref` target reachable from them, found by a worklist. Each gets a name
 * once (`assignNames`), and its schema is copied with refs replaced by those names (`tsType`).
 */
import type { Root, Target } from "./bundle.js";
import { fileStem } from "./bundle.js";
import { requireAppliedDefaults } from "./defaults.js";
import { pointerGet, pointerParse } from "./diagnostics.js";
import { typeName } from "./names.js";
import type { RefResolver } from "./refs.js";
import { copyJson, walkSchema, type SchemaNode, type TypeUnit } from "./schema-walk.js";

interface Unit {
  name: string;
  root: Root;
  pointer: string;
  preferred: string;
  fallback: string;
}

const unitKey = (t: Target) => `${t.doc}#${t.pointer}`;

export class TypeUnits {
  readonly #units = new Map<string, Unit>();

  constructor(private readonly refs: RefResolver) {}

  /** A tool's input or output schema, whose type is `name` (part of the handler contract). */
  addRoot(root: Root, name: string): void {
    this.#units.set(unitKey({ doc: root.key, pointer: "" }), { name: "", root, pointer: "", preferred: name, fallback: "" });
  }

  /** Every unit reachable from the roots, named, with its schema ready for json-schema-to-typescript. */
  build(): TypeUnit[] {
    this.#discover();
    assignNames([...this.#units.values()]);
    return [...this.#units.values()].map((unit) => {
      const schema = typeSchema(pointerGet(unit.root.schema, unit.pointer), unit.root.at + unit.pointer, (ref, site) => {
        const target = this.refs.resolve(unit.root, ref, site)!;
        return this.#units.get(unitKey(target))!.name;
      });
      // The handler gets its input with defaults filled in (defaults.ts): those properties are present.
      if (unit.pointer === "" && unit.root.key.endsWith(":input") && typeof schema !== "boolean") requireAppliedDefaults(schema);
      return { name: unit.name, schema };
    });
  }

  /** Discovers every ref target reachable from the roots; each becomes a unit. */
  #discover(): void {
    const queue = [...this.#units.values()];
    while (queue.length) {
      const unit = queue.pop()!;
      walkSchema(pointerGet(unit.root.schema, unit.pointer), unit.root.at + unit.pointer, (node, site) => {
        if (typeof node.$ref !== "string") return;
        const target = this.refs.resolve(unit.root, node.$ref, site);
        if (!target || this.#units.has(unitKey(target))) return;
        const inTool = target.doc.startsWith("tool:");
        const root = inTool ? unit.root : this.refs.defRoot(target.doc)!;
        const last = pointerParse(target.pointer).at(-1);
        const stem = inTool ? this.#units.get(unitKey({ doc: target.doc, pointer: "" }))!.preferred : typeName(fileStem(root.file));
        const preferred = inTool ? stem + typeName(last ?? "") : last ? typeName(last) : stem;
        const next = { name: "", root, pointer: target.pointer, preferred, fallback: last ? stem + typeName(last) : stem };
        this.#units.set(unitKey(target), next);
        queue.push(next);
      });
    }
  }
}

/** Names units by their preferred name; clashing ones fall back to a longer name, then a number. */
function assignNames(units: Unit[]): void {
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
  const copy = copyJson(schema) as SchemaNode;
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
