/**
 * `$ref` resolution at build time. Refs resolve against file paths: inside `inputSchema`/`outputSchema`,
 * `#/...` points into that schema; `../defs/x.json#/...` points into a file in `defs/` (or into a defs file
 * by its root `$id`); a plain-name fragment names an `$anchor`. Remote references are never fetched.
 */
import type { Dialect } from "./ajv.js";
import type { Root, Target } from "./bundle.js";
import { pointerGet, pointerJoin, type Diagnostic } from "./diagnostics.js";
import type { SourceDoc } from "./load.js";
import { walkSchema } from "./schema-walk.js";

export class RefResolver {
  readonly #defs = new Map<string, { doc: SourceDoc; dialect: Dialect }>();

  /** `diagnostics` receives one error per ref that points nowhere. */
  constructor(
    defs: readonly { doc: SourceDoc; dialect: Dialect }[],
    private readonly diagnostics: Diagnostic[],
  ) {
    for (const d of defs) {
      this.#defs.set(d.doc.url, d);
      const id = (d.doc.value as { $id?: unknown }).$id;
      if (typeof id === "string") this.#defs.set(id.replace(/#$/, ""), d);
    }
  }

  /** The defs/ file at `url` (its path or its root `$id`) as a root refs resolve in. */
  defRoot(url: string): Root | undefined {
    const d = this.#defs.get(url);
    return d && { key: d.doc.url, schema: d.doc.value, url: d.doc.url, file: d.doc.file, at: "" };
  }

  /** Resolves a ref found in `root` at `site`; reports and returns undefined when it points nowhere. */
  resolve(root: Root, ref: string, site: string): Target | undefined {
    const fail = (why: string) => {
      this.diagnostics.push({ file: root.file, pointer: pointerJoin(site, "$ref"), message: `cannot resolve ${JSON.stringify(ref)}: ${why}` });
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
      target = this.defRoot(url.href);
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
  }

  /** Resolves every ref `schema` holds, reached or not (each that points nowhere is reported). */
  resolveAll(root: Root, schema: unknown = root.schema): void {
    walkSchema(schema, root.at, (node, site) => typeof node.$ref === "string" && this.resolve(root, node.$ref, site));
  }
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
