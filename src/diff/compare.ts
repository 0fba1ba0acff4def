/**
 * Classifies the changes between two listings. A change is `breaking` when a client or a model that worked
 * with the old server can fail with the new one (an input narrowed, an output widened, something removed, a
 * safety hint weakened), `compatible` when it only adds, `patch` when it only changes prose. Schemas are
 * compared structurally after their `$ref`s are resolved.
 */
import type { Item, Json, JsonObject, Listing } from "../lint/input.js";
import { escape } from "../lint/walk.js";

export type Level = "breaking" | "compatible" | "patch";
export type Kind = "tool" | "prompt" | "resource" | "resource template";

export interface Change {
  kind: Kind;
  name: string;
  /** A pointer into the item's wire form (the new one, or the old one for what was removed). */
  pointer: string;
  level: Level;
  rule: string;
  message: string;
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const show = (v: unknown) => JSON.stringify(v);

/** Which way a schema's values flow: into the server (narrowing breaks callers) or out of it (widening does). */
type Direction = "input" | "output";

/** Narrowing an input or widening an output breaks; the opposite is compatible. */
const narrowed = (d: Direction): Level => (d === "input" ? "breaking" : "compatible");
const widened = (d: Direction): Level => (d === "input" ? "compatible" : "breaking");

function types(s: JsonObject): Set<string> | undefined {
  if (typeof s.type === "string") return new Set([s.type]);
  if (Array.isArray(s.type)) return new Set(s.type.filter((t): t is string => typeof t === "string"));
  return undefined;
}
const accepts = (set: Set<string> | undefined, t: string) => !set || set.has(t) || (t === "integer" && set.has("number"));

const LOWER = ["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"];
const UPPER = ["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"];

/** Compares two (dereferenced) schemas, pushing one change per difference. */
export function compareSchemas(a: Json, b: Json, dir: Direction, pointer: string, push: (c: Omit<Change, "kind" | "name">) => void, depth = 0): void {
  if (depth > 64 || same(a, b)) return;
  if (!isObject(a) || !isObject(b)) {
    // `true`/`false` schemas, or a schema replaced by one: treat as a change of everything
    if (a === true || (isObject(a) && Object.keys(a).length === 0)) push({ pointer, level: narrowed(dir), rule: `${dir}-narrowed`, message: "schema that accepted anything now constrains the value" });
    else push({ pointer, level: "breaking", rule: `${dir}-changed`, message: "schema replaced" });
    return;
  }
  const ta = types(a);
  const tb = types(b);
  const lost = [...(ta ?? ["any type"])].filter((t) => !accepts(tb, t));
  const gained = [...(tb ?? ["any type"])].filter((t) => !accepts(ta, t));
  if (lost.length) push({ pointer: `${pointer}/type`, level: narrowed(dir), rule: `${dir}-type-narrowed`, message: `no longer accepts ${lost.join(", ")}` });
  if (gained.length) push({ pointer: `${pointer}/type`, level: widened(dir), rule: `${dir}-type-widened`, message: `now also ${gained.join(", ")}` });

  const values = (s: JsonObject): Json[] | undefined => (Array.isArray(s.enum) ? s.enum : "const" in s ? [s.const!] : undefined);
  const va = values(a);
  const vb = values(b);
  const key = "enum" in b || !("const" in b) ? "enum" : "const";
  if (va && vb) {
    const removed = va.filter((v) => !vb.some((w) => same(v, w)));
    const added = vb.filter((v) => !va.some((w) => same(v, w)));
    if (removed.length) push({ pointer: `${pointer}/${key}`, level: narrowed(dir), rule: `${dir}-enum-narrowed`, message: `value${removed.length > 1 ? "s" : ""} ${removed.map(show).join(", ")} removed` });
    if (added.length) push({ pointer: `${pointer}/${key}`, level: widened(dir), rule: `${dir}-enum-widened`, message: `value${added.length > 1 ? "s" : ""} ${added.map(show).join(", ")} added` });
  } else if (vb) push({ pointer: `${pointer}/${key}`, level: narrowed(dir), rule: `${dir}-enum-narrowed`, message: `now limited to ${vb.map(show).join(", ")}` });
  else if (va) push({ pointer, level: widened(dir), rule: `${dir}-enum-widened`, message: "no longer limited to a list of values" });

  for (const k of [...LOWER, ...UPPER]) {
    const x = typeof a[k] === "number" ? (a[k] as number) : undefined;
    const y = typeof b[k] === "number" ? (b[k] as number) : undefined;
    if (x === y) continue;
    const lower = LOWER.includes(k);
    const tighter = y !== undefined && (x === undefined || (lower ? y > x : y < x));
    push({
      pointer: `${pointer}/${k}`,
      level: tighter ? narrowed(dir) : widened(dir),
      rule: tighter ? `${dir}-bound-tightened` : `${dir}-bound-loosened`,
      message: `${k} ${x === undefined ? "added" : y === undefined ? "removed" : "changed"}: ${x ?? "none"} → ${y ?? "none"}`,
    });
  }
  for (const k of ["pattern", "format", "multipleOf"]) {
    if (same(a[k], b[k])) continue;
    const level: Level = b[k] === undefined ? widened(dir) : a[k] === undefined ? narrowed(dir) : "breaking";
    push({ pointer: `${pointer}/${k}`, level, rule: `${dir}-${k}-changed`, message: `${k} ${show(a[k] ?? null)} → ${show(b[k] ?? null)}` });
  }

  // objects: properties, required, additionalProperties
  const pa = isObject(a.properties) ? a.properties : {};
  const pb = isObject(b.properties) ? b.properties : {};
  const ra = new Set(Array.isArray(a.required) ? a.required.map(String) : []);
  const rb = new Set(Array.isArray(b.required) ? b.required.map(String) : []);
  const closedB = b.additionalProperties === false;
  for (const name of Object.keys(pa).sort()) {
    if (name in pb) continue;
    const at = `${pointer}/properties/${escape(name)}`;
    if (dir === "output") push({ pointer: at, level: "breaking", rule: "output-property-removed", message: `field ${show(name)} dropped` });
    else push({ pointer: at, level: closedB ? "breaking" : "compatible", rule: "input-property-removed", message: `input ${show(name)} removed${closedB ? " and additional properties are refused" : ""}` });
  }
  for (const name of Object.keys(pb).sort()) {
    if (!(name in pa)) {
      const at = `${pointer}/properties/${escape(name)}`;
      if (dir === "input" && !rb.has(name)) push({ pointer: at, level: "compatible", rule: "input-optional-added", message: `new optional input ${show(name)}` });
      if (dir === "output") push({ pointer: at, level: "compatible", rule: "output-property-added", message: `new field ${show(name)}` });
    } else compareSchemas(pa[name]!, pb[name]!, dir, `${pointer}/properties/${escape(name)}`, push, depth + 1);
  }
  for (const name of [...rb].filter((n) => !ra.has(n)).sort())
    push({ pointer: `${pointer}/required`, level: narrowed(dir), rule: `${dir}-required-added`, message: dir === "input" ? `${show(name)} is now required` : `field ${show(name)} is now always present` });
  for (const name of [...ra].filter((n) => !rb.has(n) && n in pb).sort())
    push({ pointer: `${pointer}/required`, level: widened(dir), rule: `${dir}-required-removed`, message: dir === "input" ? `${show(name)} is now optional` : `field ${show(name)} made optional` });
  const open = (s: JsonObject) => s.additionalProperties !== false;
  if (open(a) && !open(b)) push({ pointer: `${pointer}/additionalProperties`, level: narrowed(dir), rule: `${dir}-closed`, message: "additional properties are now refused" });
  else if (!open(a) && open(b)) push({ pointer: `${pointer}/additionalProperties`, level: widened(dir), rule: `${dir}-opened`, message: "additional properties are now accepted" });
  else if (isObject(a.additionalProperties) && isObject(b.additionalProperties))
    compareSchemas(a.additionalProperties, b.additionalProperties, dir, `${pointer}/additionalProperties`, push, depth + 1);

  // arrays and unions
  if (a.items !== undefined && b.items !== undefined) compareSchemas(a.items, b.items, dir, `${pointer}/items`, push, depth + 1);
  for (const k of ["anyOf", "oneOf"]) {
    const xa = Array.isArray(a[k]) ? (a[k] as Json[]) : undefined;
    const xb = Array.isArray(b[k]) ? (b[k] as Json[]) : undefined;
    if (!xa && !xb) continue;
    if (!xa || !xb || xa.length !== xb.length) {
      const fewer = (xb?.length ?? Infinity) < (xa?.length ?? Infinity);
      push({ pointer: `${pointer}/${k}`, level: fewer ? narrowed(dir) : widened(dir), rule: fewer ? `${dir}-union-narrowed` : `${dir}-union-widened`, message: `${k} has ${xb?.length ?? "no"} alternatives (was ${xa?.length ?? "none"})` });
    } else xa.forEach((s, i) => compareSchemas(s, xb[i]!, dir, `${pointer}/${k}/${i}`, push, depth + 1));
  }
  for (const k of ["description", "title"]) if (!same(a[k], b[k])) push({ pointer: `${pointer}/${k}`, level: "patch", rule: "description-changed", message: `${k} changed` });
}

// Loaded on first use: the CLI imports this module for `mcpgen diff`, and json-schema-ref-parser (57 CommonJS
// modules with its dependencies) cost every other command ~25 ms of start-up.
let refParser: Promise<typeof import("@apidevtools/json-schema-ref-parser").$RefParser> | undefined;

/** A copy of a schema with every `$ref` it can resolve replaced by its target (circular ones stay refs). */
async function resolved(schema: Json | undefined): Promise<Json | undefined> {
  if (!isObject(schema)) return schema;
  const copy = structuredClone(schema);
  const $RefParser = await (refParser ??= import("@apidevtools/json-schema-ref-parser").then((m) => m.$RefParser));
  try {
    return (await $RefParser.dereference(copy as never, { dereference: { circular: "ignore" }, resolve: { external: false } })) as Json;
  } catch {
    return copy; // an unresolvable ref is compared as written
  }
}

/** Hints and their values when absent (MCP spec, ToolAnnotations); `unsafe` is the value that asks more of a client. */
const HINTS: { hint: string; absent: boolean; unsafe: boolean }[] = [
  { hint: "readOnlyHint", absent: false, unsafe: false },
  { hint: "destructiveHint", absent: true, unsafe: true },
  { hint: "idempotentHint", absent: false, unsafe: false },
  { hint: "openWorldHint", absent: true, unsafe: true },
];

async function compareTool(a: JsonObject, b: JsonObject, push: (c: Omit<Change, "kind" | "name">) => void): Promise<void> {
  const [ia, ib, oa, ob] = await Promise.all([resolved(a.inputSchema), resolved(b.inputSchema), resolved(a.outputSchema), resolved(b.outputSchema)]);
  compareSchemas(ia ?? {}, ib ?? {}, "input", "/inputSchema", push);
  if (oa === undefined && ob !== undefined) push({ pointer: "/outputSchema", level: "compatible", rule: "output-schema-added", message: "now declares an output schema (structured content)" });
  else if (oa !== undefined && ob === undefined) push({ pointer: "/outputSchema", level: "breaking", rule: "output-schema-removed", message: "no longer declares an output schema" });
  else if (oa !== undefined && ob !== undefined) compareSchemas(oa, ob, "output", "/outputSchema", push);
  const ha = isObject(a.annotations) ? a.annotations : {};
  const hb = isObject(b.annotations) ? b.annotations : {};
  for (const { hint, absent, unsafe } of HINTS) {
    const x = typeof ha[hint] === "boolean" ? ha[hint] : absent;
    const y = typeof hb[hint] === "boolean" ? hb[hint] : absent;
    if (x === y) continue;
    const worse = y === unsafe;
    push({ pointer: `/annotations/${hint}`, level: worse ? "breaking" : "compatible", rule: worse ? "hint-weakened" : "hint-strengthened", message: `${hint} ${x} → ${y}` });
  }
  for (const k of ["title", "description"]) if (!same(a[k], b[k])) push({ pointer: `/${k}`, level: "patch", rule: "description-changed", message: `${k} changed` });
}

function comparePrompt(a: JsonObject, b: JsonObject, push: (c: Omit<Change, "kind" | "name">) => void): void {
  type Arg = { name: string; required?: boolean };
  const args = (p: JsonObject) => new Map(((Array.isArray(p.arguments) ? p.arguments : []) as unknown as Arg[]).map((x, i) => [x.name, { ...x, i }]));
  const aa = args(a);
  const ab = args(b);
  for (const [name, x] of aa) {
    const y = ab.get(name);
    if (!y) push({ pointer: `/arguments/${x.i}`, level: "breaking", rule: "argument-removed", message: `argument ${show(name)} removed` });
    else if (!x.required && y.required) push({ pointer: `/arguments/${y.i}/required`, level: "breaking", rule: "argument-required", message: `argument ${show(name)} is now required` });
    else if (x.required && !y.required) push({ pointer: `/arguments/${y.i}/required`, level: "compatible", rule: "argument-optional", message: `argument ${show(name)} is now optional` });
  }
  for (const [name, y] of ab)
    if (!aa.has(name))
      push({ pointer: `/arguments/${y.i}`, level: y.required ? "breaking" : "compatible", rule: y.required ? "argument-required" : "argument-added", message: `new ${y.required ? "required" : "optional"} argument ${show(name)}` });
  for (const k of ["title", "description"]) if (!same(a[k], b[k])) push({ pointer: `/${k}`, level: "patch", rule: "description-changed", message: `${k} changed` });
}

function compareResource(a: JsonObject, b: JsonObject, push: (c: Omit<Change, "kind" | "name">) => void): void {
  if (!same(a.mimeType, b.mimeType)) push({ pointer: "/mimeType", level: "breaking", rule: "mime-type-changed", message: `mimeType ${show(a.mimeType ?? null)} → ${show(b.mimeType ?? null)}` });
  for (const k of ["name", "title", "description"]) if (!same(a[k], b[k])) push({ pointer: `/${k}`, level: "patch", rule: "description-changed", message: `${k} changed` });
}

/** Every change from `old` to `now`, grouped by kind and name (sorted), tools first. */
export async function diff(old: Listing, now: Listing): Promise<Change[]> {
  const changes: Change[] = [];
  const kinds: { kind: Kind; list: (l: Listing) => Item[]; key: string; compare: (a: JsonObject, b: JsonObject, push: (c: Omit<Change, "kind" | "name">) => void) => void | Promise<void> }[] = [
    { kind: "tool", list: (l) => l.tools, key: "name", compare: compareTool },
    { kind: "prompt", list: (l) => l.prompts, key: "name", compare: comparePrompt },
    { kind: "resource", list: (l) => l.resources, key: "uri", compare: compareResource },
    { kind: "resource template", list: (l) => l.resourceTemplates, key: "uriTemplate", compare: compareResource },
  ];
  for (const { kind, list, key, compare } of kinds) {
    const index = (l: Listing) => new Map(list(l).map((i) => [String(i.wire[key]), i.wire]));
    const before = index(old);
    const after = index(now);
    const push = (name: string) => (c: Omit<Change, "kind" | "name">) => changes.push({ kind, name, ...c });
    const removed = [...before.keys()].filter((k) => !after.has(k));
    const added = [...after.keys()].filter((k) => !before.has(k));
    for (const name of removed) {
      // a tool whose input schema reappears under a new name was most likely renamed
      const twin = kind === "tool" ? added.find((n) => same(after.get(n)!.inputSchema, before.get(name)!.inputSchema)) : undefined;
      push(name)({ pointer: "", level: "breaking", rule: `${kind.replace(" ", "-")}-removed`, message: twin ? `removed (renamed to ${show(twin)}?)` : "removed" });
    }
    for (const name of added) push(name)({ pointer: "", level: "compatible", rule: `${kind.replace(" ", "-")}-added`, message: "added" });
    for (const [name, a] of before) {
      const b = after.get(name);
      if (b && !same(a, b)) await compare(a, b, push(name));
    }
  }
  const order: Record<Kind, number> = { tool: 0, prompt: 1, resource: 2, "resource template": 3 };
  const rank: Record<Level, number> = { breaking: 0, compatible: 1, patch: 2 };
  return changes.sort(
    (x, y) => order[x.kind] - order[y.kind] || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0) || rank[x.level] - rank[y.level] || (x.pointer < y.pointer ? -1 : x.pointer > y.pointer ? 1 : 0) || (x.message < y.message ? -1 : 1),
  );
}

/** The semver bump the changes call for. */
export function bump(changes: readonly Change[]): "major" | "minor" | "patch" | "none" {
  if (changes.some((c) => c.level === "breaking")) return "major";
  if (changes.some((c) => c.level === "compatible")) return "minor";
  return changes.length ? "patch" : "none";
}
