/**
 * Defaults of tool input. ajv's `useDefaults` fills a missing property from its `default` where the
 * property sits in `properties` outside `anyOf`/`oneOf`/`not`/`if` (elsewhere strict mode refuses the
 * schema). mcpgen applies exactly the defaults this module finds, no others, and the handler's input type
 * marks exactly those properties as present: the optional ones among the root's properties and, through
 * `properties` and `items`, those of the object schemas below them — not through `$ref`, `allOf` or any
 * other keyword.
 */
import { isSchemaNode, walkSchema, type SchemaNode } from "./schema-walk.js";

/** The property schemas whose `default` is applied, with the object schema holding each. */
function applied(schema: SchemaNode, visit: (holder: SchemaNode, property: string) => void): void {
  const properties = schema.properties;
  if (isSchemaNode(properties))
    for (const [name, sub] of Object.entries(properties)) {
      if (!isSchemaNode(sub)) continue;
      // A required property is there, or the value is refused: its default changes nothing (and filling
      // it in would accept values the schema refuses).
      const required = Array.isArray(schema.required) && schema.required.includes(name);
      if (Object.hasOwn(sub, "default") && !required) visit(schema, name);
      applied(sub, visit);
    }
  if (isSchemaNode(schema.items)) applied(schema.items, visit);
}

/** Whether any default would be applied to values of `schema`. */
export function hasAppliedDefaults(schema: SchemaNode): boolean {
  let found = false;
  applied(schema, () => (found = true));
  return found;
}

/** A copy for ajv with `useDefaults`: every `default` but the applied ones removed (they are annotations). */
export function onlyAppliedDefaults(schema: SchemaNode): SchemaNode {
  const copy = structuredClone(schema);
  const keep = new Set<unknown>();
  applied(copy, (holder, name) => keep.add((holder.properties as SchemaNode)[name]));
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
  const copy = structuredClone(schema);
  walkSchema(copy, "", (node) => delete node.default);
  return copy;
}
