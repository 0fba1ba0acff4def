/**
 * Walks the subschemas of a JSON Schema (2020-12 or draft-07) by keyword, so that a property *named*
 * `$ref` or `title` inside `properties` is never mistaken for a keyword.
 */
import { pointerJoin } from "./diagnostics.js";

export type SchemaNode = Record<string, unknown>;

const MAP_KEYWORDS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const ARRAY_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SINGLE_KEYWORDS = [
  "additionalProperties",
  "additionalItems",
  "contains",
  "contentSchema",
  "else",
  "if",
  "not",
  "propertyNames",
  "then",
  "unevaluatedItems",
  "unevaluatedProperties",
];

/** Every keyword mcpgen accepts in a schema; `x-` extension keywords are accepted too. */
export const KNOWN_KEYWORDS = new Set([
  ...MAP_KEYWORDS,
  ...ARRAY_KEYWORDS,
  ...SINGLE_KEYWORDS,
  "items",
  "dependencies",
  "dependentRequired",
  "$schema",
  "$id",
  "$ref",
  "$comment",
  "$anchor",
  "$dynamicRef",
  "$dynamicAnchor",
  "$vocabulary",
  "type",
  "enum",
  "const",
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "maxItems",
  "minItems",
  "uniqueItems",
  "maxContains",
  "minContains",
  "maxProperties",
  "minProperties",
  "required",
  "format",
  "contentEncoding",
  "contentMediaType",
  "title",
  "description",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
  "examples",
]);

/**
 * A deep copy of a JSON value (what load parsed, and what the stages make of it): several times faster
 * than `structuredClone` on small schemas, which every stage copies many of. A "__proto__" key stays an
 * own property. Shared sub-objects (a YAML alias) become separate copies, which changes no printed byte.
 */
export function copyJson<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(copyJson) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const copy = copyJson((value as Record<string, unknown>)[key]);
    if (key === "__proto__") Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
    else out[key] = copy;
  }
  return out as T;
}

export function isSchemaNode(value: unknown): value is SchemaNode {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** How a keyword holds subschemas: a map of them, an array of them, or one (`items`: an array or one). */
const HOLDS = new Map<string, "map" | "array" | "one" | "items">([
  ...MAP_KEYWORDS.map((k) => [k, "map"] as const),
  ["dependencies", "map"],
  ...ARRAY_KEYWORDS.map((k) => [k, "array"] as const),
  ...SINGLE_KEYWORDS.map((k) => [k, "one"] as const),
  ["items", "items"],
]);

/**
 * Calls `visit` for `schema` and every subschema below it (pre-order), with its JSON pointer. Every stage
 * walks every schema, several times: pointers are made only for the keywords that hold subschemas.
 */
export function walkSchema(
  schema: unknown,
  pointer: string,
  visit: (node: SchemaNode, pointer: string) => void,
): void {
  if (!isSchemaNode(schema)) return;
  visit(schema, pointer);
  for (const [keyword, value] of Object.entries(schema)) {
    const holds = HOLDS.get(keyword);
    if (holds === undefined) continue;
    const at = pointerJoin(pointer, keyword);
    if (holds === "map") {
      if (isSchemaNode(value)) for (const [key, sub] of Object.entries(value)) walkSchema(sub, pointerJoin(at, key), visit);
    } else if (holds === "array" || (holds === "items" && Array.isArray(value))) {
      if (Array.isArray(value)) value.forEach((sub, i) => walkSchema(sub, pointerJoin(at, i), visit));
    } else {
      walkSchema(value, at, visit);
    }
  }
}

/** A schema that becomes one named TypeScript type. */
export interface TypeUnit {
  name: string;
  /** A digest of what its declaration is made from: the name and the schema json-schema-to-typescript reads. */
  digest: string;
  /** That schema, made when asked for: most builds take the declaration from the cache by `digest`. */
  schema(): SchemaNode | boolean;
}
