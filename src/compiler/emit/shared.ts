/**
 * Shared definitions: a definition of a defs file that several tools reach is compiled once, into one module
 * per defs file (`validators/defs/<stem>.gen.js`), and each tool's validator calls it (the `mcpgen:call`
 * keyword, ajv.ts) where its wire schema has a `$ref` to it. A tool's wire schema (what `tools/list` sends)
 * does not change: only what ajv compiles does.
 *
 * A call stands for the `$ref` only where it means the same:
 * - never in a schema with `unevaluatedProperties`/`unevaluatedItems` (ajv carries evaluated properties
 *   across a `$ref`, not across a call) or dynamic references, nor in the coerced schemas of resource
 *   templates and prompts (those keep today's inlined `$ref`s);
 * - defaults (defaults.ts): a definition with no `default` anywhere it reaches is the same validator for
 *   inputs and outputs (export `<name>`). Where an input applies defaults, a `$ref` the defaults walk follows
 *   calls `<name>$defaults` (compiled with its defaults applied), provided every `default` the definition
 *   reaches is one the walk applies from the definition itself; a `$ref` to a definition none of whose
 *   defaults the input applies calls `<name>` (compiled without defaults, as outputs are). Anything else
 *   stays inlined.
 * Each export is emitted only if some tool (or another shared definition) calls it.
 */
import { container, definitionPath, fileStem, type Origin } from "../bundle.js";
import { CALL_KEYWORD, type Dialect } from "../ajv.js";
import { appliedWalk, withoutDefaults } from "../defaults.js";
import { compare, pointerJoin } from "../diagnostics.js";
import type { ToolIR } from "../ir.js";
import { identifier, uniqueName } from "../names.js";
import { copyJson, isSchemaNode, walkSchema, type SchemaNode } from "../schema-walk.js";

/** Per schema of a tool (`input`, `output`): the pointer of each `$ref` node that becomes a call → its target. */
export type Calls = Record<string, Record<string, string>>;

/** What a shared module is compiled from: its definitions (refs already local or calls) and its exports. */
export interface SharedRequest {
  /** The defs file, for diagnostics. */
  file: string;
  dialect: Dialect;
  /** Path below the output folder without `.gen.js`: `validators/defs/<stem>`. */
  base: string;
  /** Definitions compiled without defaults, and with theirs applied, by name under `$defs`. */
  plain: Record<string, SchemaNode | boolean>;
  defaults: Record<string, SchemaNode | boolean>;
  /** Export name → which root and definition. */
  exports: Record<string, { root: "plain" | "defaults"; name: string }>;
}

export interface SharedPlan {
  calls: Map<string, Calls>;
  modules: SharedRequest[];
}

/** Keywords whose meaning crosses a `$ref` in a way a call would not carry. */
const NOT_ACROSS_CALLS = ["unevaluatedProperties", "unevaluatedItems", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor"];

/** A definition as every tool has it: its copy, with each `$ref` to another definition as that one's key. */
interface Canonical {
  origin: Origin;
  dialect: Dialect;
  copy: SchemaNode | boolean;
  /** `$ref` nodes of the copy → key of their target. */
  refs: Map<SchemaNode, string>;
  fromRoot?: boolean;
}

const keyOf = (dialect: Dialect, o: Origin) => `${dialect} ${o.file}#${o.pointer}`;

export function planShared(tools: ToolIR[]): SharedPlan {
  const canonical = new Map<string, Canonical>();
  /** Keys of the shared definitions called, with the variant: `plain` or `defaults`. */
  const wanted = new Map<string, Set<"plain" | "defaults">>();
  const want = (key: string, variant: "plain" | "defaults") => {
    const set = wanted.get(key) ?? new Set();
    wanted.set(key, set.add(variant));
  };
  const toolSites = new Map<string, Record<string, Record<string, { key: string; variant: "plain" | "defaults" }>>>();

  for (const tool of tools) {
    const sites: Record<string, Record<string, { key: string; variant: "plain" | "defaults" }>> = {};
    for (const which of ["input", "output"] as const) {
      const wire = which === "input" ? tool.wire.inputSchema : tool.wire.outputSchema;
      if (!wire) continue;
      const found = sharedSites(wire, tool.origins[which], tool.dialect, which === "input");
      if (!found) continue;
      for (const [name, node] of Object.entries(found.definitions)) {
        const origin = tool.origins[which][name]!;
        const key = keyOf(tool.dialect, origin);
        // A copy from a root carries the tool's own title and description: one from `$defs` is preferred.
        if (!canonical.has(key) || (canonical.get(key)!.fromRoot && name !== ""))
          canonical.set(key, { ...canonicalCopy(node, origin, tool.dialect, tool.origins[which]), fromRoot: name === "" });
      }
      for (const site of Object.values(found.sites)) want(site.key, site.variant);
      if (Object.keys(found.sites).length) sites[which] = found.sites;
    }
    if (Object.keys(sites).length) toolSites.set(tool.name, sites);
  }
  if (!wanted.size) return { calls: new Map(), modules: [] };

  // Which definitions default-apply anything: a definition's variant only matters if it reaches a default.
  const hasDefaults = new Map<string, boolean>();
  const reachesDefault = (key: string, seen = new Set<string>()): boolean => {
    const known = hasDefaults.get(key);
    if (known !== undefined) return known;
    if (seen.has(key)) return false;
    seen.add(key);
    const def = canonical.get(key)!;
    let found = false;
    walkSchema(def.copy, "", (node) => (found ||= Object.hasOwn(node, "default")));
    for (const target of def.refs.values()) found ||= reachesDefault(target, seen);
    if (seen.size === 1) hasDefaults.set(key, found);
    seen.delete(key);
    return found;
  };

  // Modules: one per defs file and dialect; a definition calls into another file's module, and refers to
  // one of its own file's definitions by a local `$ref`. Every definition a wanted one reaches is compiled.
  const moduleOf = new Map<string, string>();
  const files = [...new Set([...canonical.values()].map((d) => `${d.origin.file}\u0000${d.dialect}`))].sort(compare);
  const takenModules = new Set<string>();
  for (const f of files) {
    const [file, dialect] = f.split("\u0000") as [string, Dialect];
    moduleOf.set(f, uniqueName(identifier(fileStem(file)) + (dialect === "draft-07" ? "_draft07" : ""), takenModules));
  }
  const fileKey = (d: Canonical) => `${d.origin.file}\u0000${d.dialect}`;
  const localNames = new Map<string, string>();
  const byModule = new Map<string, Canonical[]>();
  for (const [, def] of [...canonical].sort(([a], [b]) => compare(a, b))) {
    const list = byModule.get(moduleOf.get(fileKey(def))!) ?? [];
    byModule.set(moduleOf.get(fileKey(def))!, [...list, def]);
  }
  for (const list of byModule.values()) {
    const taken = new Set<string>();
    for (const def of list) {
      const path = definitionPath(def.origin.pointer);
      localNames.set(keyOf(def.dialect, def.origin), uniqueName(identifier(path.length ? path.join("_") : fileStem(def.origin.file)), taken));
    }
  }
  const variantOf = (key: string, variant: "plain" | "defaults") => (variant === "defaults" && reachesDefault(key) ? "defaults" : "plain");
  const exportName = (key: string, variant: "plain" | "defaults") => localNames.get(key)! + (variant === "defaults" ? "$defaults" : "");
  const target = (from: string, key: string, variant: "plain" | "defaults") => {
    const def = canonical.get(key)!;
    return `./${from}${moduleOf.get(fileKey(def))}.gen.js#${exportName(key, variant)}`;
  };

  // Close `wanted` over the calls shared definitions make into other files, and collect each module's roots.
  const modules = new Map<string, SharedRequest>();
  const queue = [...wanted].flatMap(([key, variants]) => [...variants].map((v) => [key, variantOf(key, v)] as const));
  const done = new Set<string>();
  const exported = new Set<string>();
  while (queue.length) {
    const [key, variant] = queue.shift()!;
    const def = canonical.get(key)!;
    const moduleName = moduleOf.get(fileKey(def))!;
    let request = modules.get(moduleName);
    if (!request)
      modules.set(moduleName, (request = { file: def.origin.file, dialect: def.dialect, base: `validators/defs/${moduleName}`, plain: {}, defaults: {}, exports: {} }));
    if (!exported.has(`${key} ${variant}`)) {
      exported.add(`${key} ${variant}`);
      request.exports[exportName(key, variant)] = { root: variant, name: localNames.get(key)! };
    }
    // The definition and everything it reaches in its own file go into the root of its variant.
    const stack = [key];
    while (stack.length) {
      const k = stack.pop()!;
      if (done.has(`${k} ${variant}`)) continue;
      done.add(`${k} ${variant}`);
      const d = canonical.get(k)!;
      const copy = copyJson(d.copy);
      const nodes = new Map<SchemaNode, SchemaNode>();
      pairNodes(d.copy, copy, nodes);
      for (const [node, targetKey] of d.refs) {
        const out = nodes.get(node)!;
        const t = canonical.get(targetKey)!;
        if (fileKey(t) === fileKey(d)) {
          out.$ref = `#/${container(d.dialect)}/${localNames.get(targetKey)}`;
          stack.push(targetKey);
        } else {
          const v = variantOf(targetKey, variant);
          delete out.$ref;
          out[CALL_KEYWORD] = target("", targetKey, v);
          if (!exported.has(`${targetKey} ${v}`)) queue.push([targetKey, v]);
        }
      }
      const root = variant === "defaults" ? request.defaults : request.plain;
      root[localNames.get(k)!] = variant === "defaults" || typeof copy === "boolean" ? copy : withoutDefaults(copy);
    }
  }

  const calls = new Map<string, Calls>();
  for (const [tool, sites] of toolSites) {
    const out: Calls = {};
    for (const [which, list] of Object.entries(sites))
      out[which] = Object.fromEntries(Object.entries(list).map(([pointer, { key, variant }]) => [pointer, target("defs/", key, variantOf(key, variant))]));
    calls.set(tool, out);
  }
  const sorted = (r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).sort(([a], [b]) => compare(a, b)));
  return {
    calls,
    modules: [...modules.values()]
      .map((m) => ({ ...m, plain: sorted(m.plain), defaults: sorted(m.defaults), exports: sorted(m.exports) }) as SharedRequest)
      .sort((a, b) => compare(a.base, b.base)),
  };
}

/** Maps every schema node of `a` to the node at the same place in `b`, its structured clone. */
function pairNodes(a: unknown, b: unknown, out: Map<SchemaNode, SchemaNode>): void {
  const list: SchemaNode[] = [];
  walkSchema(b, "", (node) => list.push(node));
  let i = 0;
  walkSchema(a, "", (node) => out.set(node, list[i++]!));
}

function canonicalCopy(node: SchemaNode | boolean, origin: Origin, dialect: Dialect, origins: Record<string, Origin>): Canonical {
  const refs = new Map<SchemaNode, string>();
  walkSchema(node, "", (sub) => {
    const name = typeof sub.$ref === "string" ? localRef(sub.$ref, dialect) : undefined;
    const o = name !== undefined ? origins[name] : undefined;
    if (o) refs.set(sub, keyOf(dialect, o));
  });
  return { origin, dialect, copy: node, refs };
}

/** The definition name of a wire `$ref` (`#/$defs/<name>`; bundle's names need no unescaping). */
function localRef(ref: string, dialect: Dialect): string | undefined {
  const prefix = `#/${container(dialect)}/`;
  return ref.startsWith(prefix) && !ref.slice(prefix.length).includes("/") ? ref.slice(prefix.length) : undefined;
}

/**
 * The `$ref`s of a wire schema that become calls, by pointer, and the shared definitions they reach (name →
 * copy); undefined when the schema shares nothing. Only refs on the way from the root are considered: those
 * inside a called definition are its module's business.
 */
function sharedSites(
  wire: SchemaNode,
  origins: Record<string, Origin>,
  dialect: Dialect,
  input: boolean,
): { sites: Record<string, { key: string; variant: "plain" | "defaults" }>; definitions: Record<string, SchemaNode | boolean> } | undefined {
  if (!Object.keys(origins).length) return undefined;
  let dynamic = false;
  walkSchema(wire, "", (node) => (dynamic ||= NOT_ACROSS_CALLS.some((k) => Object.hasOwn(node, k))));
  if (dynamic) return undefined;
  const c = container(dialect);
  const defs = (isSchemaNode(wire[c]) ? wire[c] : {}) as Record<string, SchemaNode | boolean>;
  // The root without its definitions (and its `$schema`) stands as definition "" (see bundle's `origins`).
  const { [c]: _, $schema: __, ...top } = wire;
  const def = (name: string) => (name === "" ? top : Object.hasOwn(defs, name) ? defs[name] : undefined);

  // Every definition a shared one reaches, itself included, and the `default`s among them.
  const closures = new Map<string, Set<string>>();
  const closure = (name: string): Set<string> => {
    let set = closures.get(name);
    if (set) return set;
    closures.set(name, (set = new Set([name])));
    const stack = [name];
    while (stack.length)
      walkSchema(def(stack.pop()!), "", (node) => {
        const next = typeof node.$ref === "string" ? localRef(node.$ref, dialect) : undefined;
        if (next !== undefined && def(next) !== undefined && !set!.has(next)) stack.push((set!.add(next), next));
      });
    return set;
  };
  const nodesOf = (name: string, pick: (n: SchemaNode) => boolean) => {
    const out: SchemaNode[] = [];
    for (const n of closure(name)) walkSchema(def(n), "", (node) => pick(node) && out.push(node));
    return out;
  };
  const defaultNodes = (name: string) => nodesOf(name, (n) => Object.hasOwn(n, "default"));
  const appliesDefaults = input && wire.properties !== undefined;
  const tool = appliesDefaults ? appliedWalk(wire, wire) : undefined;
  // `<name>$defaults` stands for the definition where the defaults walk enters it: valid if that walk, from
  // the definition alone, applies every default it reaches and follows every `$ref` to one with defaults.
  const selfApplied = (name: string) => {
    const d = def(name);
    if (!isSchemaNode(d)) return false;
    const own = name === "" ? tool! : appliedWalk(d, wire);
    const refsToDefaults = nodesOf(name, (n) => {
      const next = typeof n.$ref === "string" ? localRef(n.$ref, dialect) : undefined;
      return next !== undefined && defaultNodes(next).length > 0;
    });
    return defaultNodes(name).every((n) => own.kept.has(n)) && refsToDefaults.every((n) => own.visited.has(n));
  };

  const sites: Record<string, { key: string; variant: "plain" | "defaults" }> = {};
  const definitions: Record<string, SchemaNode | boolean> = {};
  const decide = (name: string, applied: boolean): "plain" | "defaults" | undefined => {
    const defaults = defaultNodes(name);
    if (!defaults.length || !tool) return "plain";
    if (applied && selfApplied(name)) return "defaults";
    if (!defaults.some((n) => tool.kept.has(n))) return "plain";
    return undefined;
  };
  const share = (name: string, pointer: string, variant: "plain" | "defaults") => {
    sites[pointer] = { key: keyOf(dialect, origins[name]!), variant };
    for (const n of closure(name)) if (Object.hasOwn(origins, n)) definitions[n] = def(n)!;
  };
  const walked = new Set<string>();
  const visit = (schema: unknown, at: string) =>
    walkSchema(schema, at, (node, pointer) => {
      if (pointer === at && at === "") return; // the root itself
      const name = typeof node.$ref === "string" ? localRef(node.$ref, dialect) : undefined;
      if (name === undefined || def(name) === undefined) return;
      const variant = Object.hasOwn(origins, name) ? decide(name, tool?.visited.has(node) ?? false) : undefined;
      if (variant) return share(name, pointer, variant);
      // A definition of the tool's own, or a shared one kept inline: its refs are on the way too.
      if (!walked.has(name)) {
        walked.add(name);
        visit(def(name), pointerJoin("", c, name));
      }
    });
  // A root that is a defs file's definition is one call.
  const rootVariant = Object.hasOwn(origins, "") ? decide("", true) : undefined;
  if (rootVariant) share("", "", rootVariant);
  else visit(top, "");
  return Object.keys(sites).length ? { sites, definitions } : undefined;
}
