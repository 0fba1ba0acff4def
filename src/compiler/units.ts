/**
 * Type units: the named TypeScript types json-schema-to-typescript generates — one per tool input and
 * output, and one per distinct `$ref` target reachable from them, found by a worklist. Each gets a name
 * once (`assignNames`), and its schema is copied with refs replaced by those names (`tsType`).
 *
 * A unit's copy is made in two steps: its **shape**, the copy with each ref replaced by the key of the unit
 * it points to, which depends on the schema alone; and the names put in when json-schema-to-typescript
 * needs the schema. A unit's digest is its shape's digest, its name and the names it refers to: what its
 * declaration is made from. The units cut from a tool's own schemas (its roots and the definitions inside
 * them) depend on that tool's file alone, so a build can hand them back (`keep`) instead of cutting them
 * again; the names are always decided over every unit, since one tool's unit can take a name another wanted.
 */
import type { Root, Target } from "./bundle.js";
import { jsonDigest } from "./cache.js";
import { fileStem } from "./bundle.js";
import { requireAppliedDefaults } from "./defaults.js";
import { pointerGet, pointerParse } from "./diagnostics.js";
import { typeName } from "./names.js";
import type { RefResolver } from "./refs.js";
import { copyJson, walkSchema, type SchemaNode, type TypeUnit } from "./schema-walk.js";

/** A unit's copy with every ref replaced by the key of its target unit (in `tsType`), and those keys. */
interface Shape {
  schema: SchemaNode | boolean;
  /** Keys of the units its `tsType`s name, in the order of the walk. */
  targets: string[];
  digest: string;
}

/** A unit cut from a tool's own schemas, as a later build takes it back (see `TypeUnits.keep`). */
export interface KeptUnit {
  key: string;
  pointer: string;
  preferred: string;
  fallback: string;
  targets: string[];
  digest: string;
}

/** What a tool's own units are, for a later build: the units, their shapes as JSON text, and the units they reach elsewhere. */
export interface KeptUnits {
  units: KeptUnit[];
  /** The units' shapes (`Shape.schema`), as one JSON text: parsed only when a declaration is compiled. */
  shapes: string;
  /** Keys of the units in defs files they refer to. */
  reaches: string[];
}

interface Unit {
  key: string;
  name: string;
  /** The document the unit is in; undefined for a unit kept from an earlier build. */
  root: Root | undefined;
  pointer: string;
  preferred: string;
  fallback: string;
  shape: Shape | undefined;
  /** For a kept unit: its shape's schema, when first asked for. */
  kept?: { targets: string[]; digest: string; schema: () => SchemaNode | boolean };
}

const unitKey = (t: Target) => `${t.doc}#${t.pointer}`;

export class TypeUnits {
  readonly #units = new Map<string, Unit>();
  /** Units kept from earlier builds refer to units in defs files by key: discovered from there. */
  readonly #reached = new Set<string>();
  /** The units cut from each tool's own schemas, by tool name (made by the first `ownUnits`). */
  #byTool: Map<string, Unit[]> | undefined;

  constructor(private readonly refs: RefResolver) {}

  /** A tool's input or output schema, whose type is `name` (part of the handler contract). */
  addRoot(root: Root, name: string): void {
    const key = unitKey({ doc: root.key, pointer: "" });
    this.#units.set(key, { key, name: "", root, pointer: "", preferred: name, fallback: "", shape: undefined });
  }

  /** A tool's own units as an earlier build cut them (`ownUnits`), instead of its roots. */
  keep(kept: KeptUnits): void {
    let shapes: (SchemaNode | boolean)[] | undefined;
    kept.units.forEach((u, i) => {
      const schema = () => (shapes ??= JSON.parse(kept.shapes) as (SchemaNode | boolean)[])[i]!;
      this.#units.set(u.key, { key: u.key, name: "", root: undefined, pointer: u.pointer, preferred: u.preferred, fallback: u.fallback, shape: undefined, kept: { targets: u.targets, digest: u.digest, schema } });
    });
    for (const key of kept.reaches) this.#reached.add(key);
  }

  /** Every unit reachable from the roots, named, each with its digest and, when asked, its schema for json-schema-to-typescript. */
  build(): TypeUnit[] {
    this.#discover();
    assignNames([...this.#units.values()]);
    const nameOf = (key: string) => this.#units.get(key)!.name;
    return [...this.#units.values()].map((unit) => {
      const { targets, digest } = unit.shape ?? unit.kept!;
      const shape = unit.shape ? () => unit.shape!.schema : unit.kept!.schema;
      return {
        name: unit.name,
        digest: jsonDigest([digest, unit.name, targets.map(nameOf)]),
        schema: () => withNames(shape(), nameOf),
      };
    });
  }

  /** The units cut from the schemas of tool `name` (its roots and their definitions), for `keep`. */
  ownUnits(name: string): KeptUnits {
    if (!this.#byTool) {
      this.#byTool = new Map();
      for (const u of this.#units.values()) {
        if (!u.shape || !u.key.startsWith("tool:")) continue;
        const tool = u.key.slice("tool:".length, u.key.indexOf(":", "tool:".length));
        const list = this.#byTool.get(tool);
        if (list) list.push(u);
        else this.#byTool.set(tool, [u]);
      }
    }
    const own = this.#byTool.get(name) ?? [];
    const reaches = new Set<string>();
    for (const u of own) for (const t of u.shape!.targets) if (!t.startsWith("tool:")) reaches.add(t);
    return {
      units: own.map((u) => ({ key: u.key, pointer: u.pointer, preferred: u.preferred, fallback: u.fallback, targets: u.shape!.targets, digest: u.shape!.digest })),
      shapes: JSON.stringify(own.map((u) => u.shape!.schema)),
      reaches: [...reaches].sort(),
    };
  }

  /** Discovers every ref target reachable from the roots (and from kept units); each becomes a unit, with its shape. */
  #discover(): void {
    const queue = [...this.#units.values()].filter((u) => u.root);
    const add = (target: Target, from: Unit | undefined) => {
      const key = unitKey(target);
      if (this.#units.has(key)) return;
      const inTool = target.doc.startsWith("tool:");
      const root = inTool ? from!.root! : this.refs.defRoot(target.doc)!;
      const last = pointerParse(target.pointer).at(-1);
      const stem = inTool ? this.#units.get(unitKey({ doc: target.doc, pointer: "" }))!.preferred : typeName(fileStem(root.file));
      const preferred = inTool ? stem + typeName(last ?? "") : last ? typeName(last) : stem;
      const next: Unit = { key, name: "", root, pointer: target.pointer, preferred, fallback: last ? stem + typeName(last) : stem, shape: undefined };
      this.#units.set(key, next);
      queue.push(next);
    };
    for (const key of this.#reached) {
      const hash = key.indexOf("#");
      add({ doc: key.slice(0, hash), pointer: key.slice(hash + 1) }, undefined);
    }
    while (queue.length) {
      const unit = queue.pop()!;
      const root = unit.root!;
      const schema = pointerGet(root.schema, unit.pointer);
      walkSchema(schema, root.at + unit.pointer, (node, site) => {
        if (typeof node.$ref !== "string") return;
        const target = this.refs.resolve(root, node.$ref, site);
        if (target) add(target, unit);
      });
      unit.shape = shapeOf(schema, root.at + unit.pointer, (ref, site) => unitKey(this.refs.resolve(root, ref, site)!));
      // The handler gets its input with defaults filled in (defaults.ts): those properties are present.
      if (unit.pointer === "" && root.key.endsWith(":input") && typeof unit.shape.schema !== "boolean") requireAppliedDefaults(unit.shape.schema);
      unit.shape.digest = jsonDigest(unit.shape.schema);
    }
  }
}

/** Names units by their preferred name; clashing ones fall back to a longer name, then a number. */
function assignNames(units: Unit[]): void {
  const count = new Map<string, number>();
  for (const u of units) count.set(u.preferred, (count.get(u.preferred) ?? 0) + 1);
  const taken = new Set<string>();
  const ordered = [...units].sort((a, b) => (a.key < b.key ? -1 : 1));
  // Tool roots first: their names are part of the handler contract and never change.
  for (const u of ordered) if (u.pointer === "" && u.key.startsWith("tool:")) taken.add((u.name = u.preferred));
  for (const u of ordered) {
    if (u.name) continue;
    let name = count.get(u.preferred) === 1 && !taken.has(u.preferred) ? u.preferred : u.fallback || u.preferred;
    for (let i = 2; taken.has(name); i++) name = `${u.fallback || u.preferred}${i}`;
    taken.add((u.name = name));
  }
}

/** A copy for json-schema-to-typescript: refs become the keys of their units (`tsType`), nested titles go. */
function shapeOf(schema: unknown, at: string, refKey: (ref: string, site: string) => string): Shape {
  const targets: string[] = [];
  if (typeof schema === "boolean") return { schema, targets, digest: "" };
  const copy = copyJson(schema) as SchemaNode;
  walkSchema(copy, at, (node, site) => {
    if (node !== copy) delete node.title;
    delete node.$defs;
    delete node.definitions;
    delete node.$schema;
    delete node.$id;
    if (typeof node.$ref === "string") {
      targets.push((node.tsType = refKey(node.$ref, site)));
      delete node.$ref;
    }
  });
  return { schema: copy, targets, digest: "" };
}

/** A shape's schema with the unit names in its `tsType`s, in the order the shape's walk found them. */
function withNames(shape: SchemaNode | boolean, nameOf: (key: string) => string): SchemaNode | boolean {
  if (typeof shape === "boolean") return shape;
  const copy = copyJson(shape);
  walkSchema(copy, "", (node) => {
    if (typeof node.tsType === "string") node.tsType = nameOf(node.tsType);
  });
  return copy;
}
