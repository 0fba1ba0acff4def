/** Types: one TypeScript declaration per type unit, made by json-schema-to-typescript (cached per unit). */
import type { Options } from "json-schema-to-typescript";
import type { JSONSchema4 } from "json-schema";
import { cacheKey, type Cache } from "../cache.js";
import type { TypeUnit } from "../normalize.js";
import type { Code } from "./render.js";

const options: Partial<Options> = {
  bannerComment: "",
  format: false,
  declareExternallyReferenced: true,
  unreachableDefinitions: false,
  ignoreMinAndMaxItems: true,
  strictIndexSignatures: false,
  unknownAny: true,
};

/** A unit's declaration; with `onlyCached`, undefined unless the cache has it. */
export async function emitTypeUnit(unit: TypeUnit, cache: Cache, onlyCached = false): Promise<Code | undefined> {
  const key = cacheKey("types", unit);
  let code = cache.get(key);
  if (code === undefined) {
    if (onlyCached) return undefined;
    code = await compileUnit(unit);
    cache.set(key, code);
  }
  return { code };
}

async function compileUnit(unit: TypeUnit): Promise<string> {
  if (typeof unit.schema === "boolean") return `export type ${unit.name} = ${unit.schema ? "unknown" : "never"};`;
  // The unit's name wins over any title of its own: names are decided by mcpgen, not by jstt.
  const schema = shadowOwnKeys({ ...unit.schema, title: unit.name }) as JSONSchema4;
  // Loaded on first use: a build whose types all come from the cache never pays for it.
  const { compile } = await import("json-schema-to-typescript");
  return indent((await compile(schema, unit.name, options)).replaceAll(OWN_KEY_STANDIN, "hasOwnProperty"));
}

/**
 * json-schema-to-typescript calls `node.hasOwnProperty(…)` on every object of a schema, so a property named
 * "hasOwnProperty" would crash it. Such keys (and the `required` entries naming them) travel under a
 * stand-in that is an identifier like the name itself, so the output prints it the same way, and are put
 * back in the output.
 */
const OWN_KEY_STANDIN = "mcpgen_hasOwnProperty_standin";

function shadowOwnKeys(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((v) => (key === "required" && v === "hasOwnProperty" ? OWN_KEY_STANDIN : shadowOwnKeys(v)));
  if (value === null || typeof value !== "object") {
    if (typeof value === "string" && value.includes(OWN_KEY_STANDIN)) throw new Error(`a schema may not contain ${OWN_KEY_STANDIN}`);
    return value;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value))
    Object.defineProperty(out, k === "hasOwnProperty" ? OWN_KEY_STANDIN : k, { value: shadowOwnKeys(v, k), enumerable: true, writable: true, configurable: true });
  return out;
}

/** json-schema-to-typescript without prettier prints flat; indent by brace depth (comments included). */
function indent(code: string): string {
  let depth = 0;
  let inComment = false;
  return code
    .trim()
    .split("\n")
    .map((line) => {
      const text = line.trim();
      if (!inComment && /^[}\]]/.test(text)) depth = Math.max(0, depth - 1);
      const out = text ? "  ".repeat(depth) + (inComment || text.startsWith("*") ? " " + text.replace(/^\*/, "*") : text) : "";
      if (text.startsWith("/*")) inComment = !text.endsWith("*/");
      else if (inComment && text.endsWith("*/")) inComment = false;
      else if (!inComment && /[{[]$/.test(text)) depth++;
      return out;
    })
    .join("\n");
}
