/**
 * Tagged unions, for ajv only: a `oneOf` or `anyOf` whose branches are objects that each require one
 * property and give it a different constant (`"kind": {"const": "paragraph"}`, …) becomes a chain of
 * `if`/`then`/`else` that picks the branch by that property.
 *
 * Why: with `allErrors` (every problem of an input is reported) ajv checks every branch of a union in full,
 * a branch whose tag does not match included. A union whose branches hold the union again (a block whose
 * children are blocks) is then checked 3^depth times for three branches: a valid document 14 levels deep
 * (445 bytes) took half a second, 20 levels some minutes. The chain checks one branch per level.
 *
 * The verdicts are the union's: no two branches can both pass (their tags differ and each requires it), so
 * `oneOf` and `anyOf` pass exactly when the branch the tag names passes, and the chain's last `else` refuses
 * an object without a known tag (and anything that is not an object), as every branch would. The errors
 * reported are the named branch's, or the tag's own (missing, or not one of the constants). Left as it is:
 * a union whose branches are not all visible here (a call into another module, a `$ref` that is not to this
 * document's own definitions), one with a default inside it (ajv applies none inside a union, but would in a
 * `then`), a node that already has `if`, and a document that uses `unevaluatedProperties` or
 * `unevaluatedItems`. The wire schema, and the types made from it, keep the union.
 */
import type { Dialect } from "./ajv.js";
import { container } from "./bundle.js";
import { copyJson, isSchemaNode, walkSchema, type SchemaNode } from "./schema-walk.js";

type Scalar = string | number | boolean | null;

/** `text`: the schema's JSON, or that of a schema it was made from that has the same union keywords. */
export function taggedUnions(root: SchemaNode, dialect: Dialect, text = JSON.stringify(root)): SchemaNode {
  if (!/"(?:oneOf|anyOf)"/.test(text) || /"unevaluated(?:Properties|Items)"/.test(text)) return root;
  const copy = copyJson(root);
  const prefix = `#/${container(dialect)}/`;
  const defs = copy[container(dialect)];
  let changed = false;
  /** A branch as a schema with its own keywords: itself, or the definition of this document it refers to. */
  const resolve = (branch: unknown): SchemaNode | undefined => {
    if (!isSchemaNode(branch) || JSON.stringify(branch).includes('"default"')) return undefined;
    if (branch.$ref === undefined) return branch;
    if (Object.keys(branch).length !== 1 || typeof branch.$ref !== "string" || !branch.$ref.startsWith(prefix) || !isSchemaNode(defs)) return undefined;
    const name = branch.$ref.slice(prefix.length);
    const def = Object.hasOwn(defs, name) ? defs[name] : undefined;
    return isSchemaNode(def) && def.$ref === undefined && !JSON.stringify(def).includes('"default"') ? def : undefined;
  };
  walkSchema(copy, "", (node) => {
    if ("if" in node || "then" in node || "else" in node) return;
    for (const keyword of ["oneOf", "anyOf"]) {
      const branches = node[keyword];
      if (!Array.isArray(branches) || branches.length < 2) continue;
      const tag = tagOf(branches.map(resolve));
      if (tag === undefined) continue;
      const { name, values } = tag;
      let chain: SchemaNode = { type: "object", required: [name], properties: { [name]: { enum: values } } };
      for (let i = branches.length - 1; i >= 0; i--) {
        chain = { if: { type: "object", required: [name], properties: { [name]: { const: values[i] } } }, then: branches[i], else: chain };
      }
      delete node[keyword];
      Object.assign(node, chain);
      changed = true;
      return;
    }
  });
  return changed ? copy : root;
}

/** The property every branch requires and gives a constant of its own, and those constants in branch order. */
function tagOf(branches: (SchemaNode | undefined)[]): { name: string; values: Scalar[] } | undefined {
  const first = branches[0];
  if (first === undefined || !isSchemaNode(first.properties)) return undefined;
  for (const name of Object.keys(first.properties)) {
    if (name === "__proto__") continue;
    const values: Scalar[] = [];
    for (const branch of branches) {
      const value = branch === undefined ? undefined : constantOf(branch, name);
      if (value === undefined || values.includes(value)) break;
      values.push(value);
    }
    if (values.length === branches.length) return { name, values };
  }
  return undefined;
}

/** The constant an object branch requires its property `name` to be, if it does. */
function constantOf(branch: SchemaNode, name: string): Scalar | undefined {
  if (branch.type !== "object" || !Array.isArray(branch.required) || !branch.required.includes(name) || !isSchemaNode(branch.properties)) return undefined;
  const property = Object.hasOwn(branch.properties, name) ? branch.properties[name] : undefined;
  if (!isSchemaNode(property)) return undefined;
  const value = "const" in property ? property.const : Array.isArray(property.enum) && property.enum.length === 1 ? property.enum[0] : undefined;
  return value === null || ["string", "number", "boolean"].includes(typeof value) ? (value as Scalar) : undefined;
}
