/** Visits every subschema of a JSON Schema with its pointer and how many object levels enclose it. */
import type { Json, JsonObject } from "./input.js";

export interface Visit {
  schema: JsonObject;
  pointer: string;
  /** Object schemas from the root down to this one, this one included when it is an object. */
  objectDepth: number;
  /** The keyword path from the root, e.g. ["properties", "a", "items"]. */
  path: string[];
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);
export const escape = (s: string): string => s.replace(/~/g, "~0").replace(/\//g, "~1");

/** Keywords whose value is a schema, an array of schemas, or a map of schemas. */
const ONE = ["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems"];
const MANY = ["allOf", "anyOf", "oneOf", "prefixItems"];
const MAP = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

export const isObjectSchema = (s: JsonObject): boolean =>
  s.type === "object" || (Array.isArray(s.type) && s.type.includes("object")) || (s.type === undefined && (isObject(s.properties) || s.required !== undefined));

export function walk(root: Json, pointer: string, visit: (v: Visit) => void): void {
  const go = (schema: Json, ptr: string, depth: number, path: string[]) => {
    if (!isObject(schema)) return;
    const here = depth + (isObjectSchema(schema) ? 1 : 0);
    visit({ schema, pointer: ptr, objectDepth: here, path });
    for (const k of ONE) if (k in schema) go(schema[k]!, `${ptr}/${k}`, here, [...path, k]);
    for (const k of MANY) {
      const list = schema[k];
      if (Array.isArray(list)) list.forEach((s, i) => go(s, `${ptr}/${k}/${i}`, here, [...path, k, String(i)]));
    }
    if (Array.isArray(schema.items)) schema.items.forEach((s, i) => go(s, `${ptr}/items/${i}`, here, [...path, "items", String(i)]));
    for (const k of MAP) {
      const map = schema[k];
      // $defs do not nest the definition inside the schema that holds them: they start again at the root's depth
      const base = k === "$defs" || k === "definitions" ? 0 : here;
      if (isObject(map)) for (const [name, s] of Object.entries(map)) go(s, `${ptr}/${k}/${escape(name)}`, base, [...path, k, name]);
    }
  };
  go(root, pointer, 0, []);
}
