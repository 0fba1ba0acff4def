/**
 * Defaults of tool input. ajv's `useDefaults` fills a missing property from its `default` where the
 * property sits in `properties` outside `anyOf`/`oneOf`/`not`/`if` (elsewhere strict mode refuses the
 * schema). mcpgen applies exactly the defaults this module finds, no others, and the handler's input type
 * marks those properties as present: the optional ones among the root's properties and, through
 * `properties` and `items`, those of the object schemas below them — not through `allOf` or any other
 * keyword. Through a local `$ref` to a definition (`#/$defs/<name>`, `#/definitions/<name>`) the defaults
 * are applied too, but the definition's type stays as written: it is one type shared by every schema that
 * refers to it, outputs included.
 */
import { copyJson, isSchemaNode, walkSchema, type SchemaNode } from "./schema-walk.js";

type Visit = (holder: SchemaNode, property: string) => void;

/**
 * The property schemas whose `default` is applied, with the object schema holding each. With `root`, local
 * `$ref`s to its definitions are followed (each definition once, so recursive ones end).
 */
function applied(schema: SchemaNode, visit: Visit, root?: SchemaNode, seen = new Set<SchemaNode>(), visited?: Set<SchemaNode>): void {
  visited?.add(schema);
  const properties = schema.properties;
  if (isSchemaNode(properties))
    for (const [name, sub] of Object.entries(properties)) {
      if (!isSchemaNode(sub)) continue;
      // A required property is there, or the value is refused: its default changes nothing (and filling
      // it in would accept values the schema refuses).
      const required = Array.isArray(schema.required) && schema.required.includes(name);
      if (Object.hasOwn(sub, "default") && !required) visit(schema, name);
      applied(sub, visit, root, seen, visited);
    }
  if (isSchemaNode(schema.items)) applied(schema.items, visit, root, seen, visited);
  const target = root && typeof schema.$ref === "string" ? definition(root, schema.$ref) : undefined;
  if (target && !seen.has(target)) {
    seen.add(target);
    applied(target, visit, root, seen, visited);
  }
}

/**
 * What applying the defaults of `schema` (a definition of `root`, or `root` itself) touches: the property
 * schemas whose `default` is applied, and every schema the walk passes, so a `$ref` among them is followed
 * with defaults applied and any other is not.
 */
export function appliedWalk(schema: SchemaNode, root: SchemaNode): { kept: Set<SchemaNode>; visited: Set<SchemaNode> } {
  const kept = new Set<SchemaNode>();
  const visited = new Set<SchemaNode>();
  applied(schema, (holder, name) => kept.add((holder.properties as SchemaNode)[name] as SchemaNode), root, new Set(), visited);
  return { kept, visited };
}

/** The definition a local `$ref` names, `#/$defs/<name>` or `#/definitions/<name>`. */
function definition(root: SchemaNode, ref: string): SchemaNode | undefined {
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  if (!match) return undefined;
  const defs = root[match[1] as string];
  const name = (match[2] as string).replace(/~1/g, "/").replace(/~0/g, "~");
  const target = isSchemaNode(defs) && Object.hasOwn(defs, name) ? defs[name] : undefined;
  return isSchemaNode(target) ? target : undefined;
}

/** Whether any default would be applied to values of `schema`. */
export function hasAppliedDefaults(schema: SchemaNode): boolean {
  let found = false;
  applied(schema, () => (found = true), schema);
  return found;
}

/** A copy for ajv with `useDefaults`: every `default` but the applied ones removed (they are annotations). */
export function onlyAppliedDefaults(schema: SchemaNode): SchemaNode {
  const copy = copyJson(schema);
  const keep = new Set<unknown>();
  applied(copy, (holder, name) => keep.add((holder.properties as SchemaNode)[name]), copy);
  walkSchema(copy, "", (node) => {
    if (!keep.has(node)) delete node.default;
  });
  return copy;
}

/** A schema whose values have their `default`s filled in cannot lack them: they become `required`. */
export function requireAppliedDefaults(schema: SchemaNode): void {
  applied(schema, (holder, name) => {
    const required = Array.isArray(holder.required) ? (holder.required as unknown[]) : [];
    if (!required.includes(name)) holder.required = [...required, name];
  });
}

/** Without any `default`: what ajv compiles when it must apply none (an output schema). */
export function withoutDefaults(schema: SchemaNode): SchemaNode {
  const copy = copyJson(schema);
  walkSchema(copy, "", (node) => delete node.default);
  return copy;
}
