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
  const schema = { ...unit.schema, title: unit.name } as JSONSchema4;
  // Loaded on first use: a build whose types all come from the cache never pays for it.
  const { compile } = await import("json-schema-to-typescript");
  return indent(await compile(schema, unit.name, options));
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
