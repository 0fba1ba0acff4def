/**
 * The wire form of a tool schema: self-contained, carrying only the definitions it reaches, all of them
 * one level deep under `$defs` (`definitions` in draft-07) so that every `$ref` reads `#/$defs/<name>`.
 * Clients that resolve refs themselves often handle no other form (LangChain's MCP adapters resolve only
 * `#/$defs/<name>`), and a definition nobody reaches is bytes sent to the model in every `tools/list`.
 */
import type { Dialect } from "./ajv.js";
import { compare, pointerGet, pointerJoin, pointerParse, type Diagnostic } from "./diagnostics.js";
import { uniqueName } from "./names.js";
import { copyJson, isSchemaNode, walkSchema, type SchemaNode } from "./schema-walk.js";

/** Where a `$ref` points: a document (the tool's own schema, or a defs file) and a pointer in it. */
export interface Target {
  /** `tool:<name>:input`, `tool:<name>:output`, or the defs file URL. */
  doc: string;
  pointer: string;
}

export interface Root {
  key: string;
  schema: unknown;
  /** Base URL for relative file refs. */
  url: string;
  file: string;
  /** Pointer of the schema root inside its file, for diagnostics. */
  at: string;
}

export interface BundleContext {
  /** Resolves a ref found in `root` at `site`; reports and returns undefined when it points nowhere. */
  resolve: (root: Root, ref: string, site: string) => Target | undefined;
  /** The document a target lives in. */
  docRoot: (doc: string) => Root;
  /** The defs files whose content the wire schema carries. */
  uses: Set<string>;
  diagnostics: Diagnostic[];
}

const RECURSION_NOTE =
  "recursive $ref: the schema refers to itself, which JSON Schema allows, but some clients (e.g. Mastra 0.14) drop tools with recursive schemas without a word";

/** Where a dialect keeps its definitions. */
export const container = (dialect: Dialect) => (dialect === "draft-07" ? "definitions" : "$defs");

/** The path of a definition inside its file, its containers left out (`/$defs/task/$defs/id` → `task`, `id`). */
export function definitionPath(pointer: string): string[] {
  return pointerParse(pointer).filter((s, i, all) => !((s === "$defs" || s === "definitions") && i < all.length - 1));
}

/** What may stand beside a root `$ref` for the root to be the definition it refers to. */
const ROOT_ANNOTATIONS = new Set(["title", "description", "$comment", "$schema", "examples"]);

/** A definition of the wire schema: where it comes from and its copy. */
interface Definition {
  target: Target;
  name: string;
  copy: SchemaNode | boolean;
}

/** One `$ref` in a copy: the node to rewrite, where it was written, and the copy holding it. */
interface RefSite {
  node: SchemaNode;
  target: string;
  file: string;
  pointer: string;
  /** The key of the definition the ref sits in; `""` for the wire root. */
  holder: string;
}

/** Where a definition copied from a defs file comes from: the file and the pointer in it. */
export interface Origin {
  file: string;
  pointer: string;
}

/**
 * `origins`, when given, receives the origin of every definition copied from a defs file, by its name
 * under `$defs`, and under `""` that of the root when it is a defs file's definition inlined (a root `$ref`
 * with nothing but annotations beside it): what lets emit compile a shared definition once for every tool
 * that reaches it.
 */
export function bundle(root: Root, dialect: Dialect, which: "input" | "output", ctx: BundleContext, origins?: Record<string, Origin>): SchemaNode | undefined {
  if (typeof root.schema === "boolean") return root.schema ? {} : { not: {} };
  const defsKey = container(dialect);
  const before = ctx.diagnostics.length;
  const definitions = new Map<string, Definition>();
  const refs: RefSite[] = [];
  const queue: string[] = [];
  const keyOf = (t: Target) => `${t.doc}#${t.pointer}`;

  /** A copy of `node` (found in `from` at `at`) without containers, ids and anchors; its refs recorded. */
  const copy = (node: unknown, from: Root, at: string, holder: string): SchemaNode | boolean => {
    if (!isSchemaNode(node)) return copyJson(node) as boolean;
    const out = copyJson(node);
    walkSchema(out, at, (sub, site) => {
      // Definitions live at the root only; nothing inside a copy refers into its containers any more.
      delete sub.$defs;
      delete sub.definitions;
      delete sub.$id;
      delete sub.$anchor;
      if (sub !== out || holder !== "") delete sub.$schema;
      if (typeof sub.$ref !== "string") return;
      const target = ctx.resolve(from, sub.$ref, site);
      if (!target) return;
      const key = keyOf(target);
      if (!definitions.has(key)) {
        definitions.set(key, { target, name: "", copy: {} });
        queue.push(key);
      }
      refs.push({ node: sub, target: key, file: from.file, pointer: pointerJoin(site, "$ref"), holder });
    });
    return out;
  };
  const at = (t: Target) => {
    const doc = ctx.docRoot(t.doc);
    if (!t.doc.startsWith("tool:")) ctx.uses.add(doc.file);
    return { doc, node: pointerGet(doc.schema, t.pointer), site: doc.at + t.pointer };
  };

  let wire: SchemaNode;
  const schema = root.schema as SchemaNode;
  if (typeof schema.$ref === "string") {
    // A root `$ref` is inlined so that clients see the object schema itself at the root.
    const { $ref, ...siblings } = schema;
    const target = ctx.resolve(root, $ref, root.at);
    const found = target && at(target);
    if (!found) return undefined;
    if (!isSchemaNode(found.node)) wire = copy(schema, root, root.at, "") as SchemaNode;
    else {
      const inlined = copy(found.node, found.doc, found.site, "") as SchemaNode;
      const own = copy(siblings, root, root.at, "") as SchemaNode;
      const conflict = Object.keys(own).find((k) => Object.hasOwn(inlined, k) && !["title", "description", "$comment", "$schema"].includes(k));
      if (conflict) {
        ctx.diagnostics.push({ file: root.file, pointer: pointerJoin(root.at, conflict), message: `"${conflict}" next to a root "$ref" that also defines it: move it into the referenced schema` });
        return undefined;
      }
      wire = { ...inlined, ...own };
      // The root stands for the definition it inlines when nothing beside the `$ref` but annotations.
      if (origins && !target.doc.startsWith("tool:") && Object.keys(siblings).every((k) => ROOT_ANNOTATIONS.has(k)))
        origins[""] = { file: found.doc.file, pointer: target.pointer };
    }
  } else wire = copy(schema, root, root.at, "") as SchemaNode;

  while (queue.length) {
    const key = queue.shift()!;
    const def = definitions.get(key)!;
    const found = at(def.target);
    def.copy = copy(found.node, found.doc, found.site, key);
  }
  if (ctx.diagnostics.length !== before) return undefined;

  nameDefinitions([...definitions.values()], which, (doc) => ctx.docRoot(doc).file);
  for (const ref of refs) ref.node.$ref = `#/${defsKey}/${definitions.get(ref.target)!.name}`;
  if (origins)
    for (const d of definitions.values())
      if (!d.target.doc.startsWith("tool:")) origins[d.name] = { file: ctx.docRoot(d.target.doc).file, pointer: d.target.pointer };
  noteRecursion(refs, ctx.diagnostics);
  if (definitions.size) {
    const sorted = [...definitions.values()].sort((a, b) => compare(a.name, b.name));
    wire[defsKey] = Object.fromEntries(sorted.map((d) => [d.name, d.copy]));
  }
  return wire;
}

/**
 * Readable, unique, deterministic names: a defs file's stem (`task`), with the path inside it when the
 * target is below its root (`task_taskId`; container keywords left out); inside the tool's own schema the
 * path alone (`parcel`), or `input`/`output` for its root. Characters other than `[A-Za-z0-9_.-]` become
 * `_`, so a name needs no escaping in a JSON pointer or a URI fragment. Clashes get `_2`, `_3`, ... in the
 * order of (own schema first, then file, then pointer).
 */
function nameDefinitions(list: Definition[], which: "input" | "output", fileOf: (doc: string) => string): void {
  const own = (d: Definition) => d.target.doc.startsWith("tool:");
  const preferred = (d: Definition) => {
    const path = definitionPath(d.target.pointer);
    const stem = own(d) ? (path.length ? "" : which) : fileStem(fileOf(d.target.doc));
    const name = [stem, ...path].filter(Boolean).join("_").replace(/[^A-Za-z0-9_.-]/g, "_");
    return name || "def";
  };
  const ordered = [...list].sort(
    (a, b) => Number(own(b)) - Number(own(a)) || compare(fileOf(a.target.doc), fileOf(b.target.doc)) || compare(a.target.pointer, b.target.pointer),
  );
  const taken = new Set<string>();
  for (const d of ordered) d.name = uniqueName(preferred(d), taken);
}

/** Notes every `$ref` whose target leads back to the definition holding it (or to the root). */
function noteRecursion(refs: RefSite[], diagnostics: Diagnostic[]): void {
  const edges = new Map<string, string[]>();
  for (const r of refs) edges.set(r.holder, [...(edges.get(r.holder) ?? []), r.target]);
  const reach = (from: string): Set<string> => {
    const seen = new Set<string>();
    const stack = [from];
    while (stack.length) for (const next of edges.get(stack.pop()!) ?? []) if (!seen.has(next)) seen.add(next), stack.push(next);
    return seen;
  };
  const memo = new Map<string, Set<string>>();
  for (const r of refs) {
    if (r.holder === "") continue; // the root is not a definition: nothing refers to it by this key
    let reached = memo.get(r.target);
    if (!reached) memo.set(r.target, (reached = reach(r.target)));
    if (r.target === r.holder || reached.has(r.holder)) diagnostics.push({ file: r.file, pointer: r.pointer, message: RECURSION_NOTE, severity: "warning" });
  }
}

export function fileStem(file: string): string {
  return file.slice(file.lastIndexOf("/") + 1).replace(/\.(json|ya?ml)$/i, "");
}
