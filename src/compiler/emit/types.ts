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
  const key = cacheKey("types", unit.name, unit.digest);
  let code = cache.get(key);
  if (code === undefined) {
    if (onlyCached) return undefined;
    code = await compileUnit(unit.name, unit.schema());
    cache.set(key, code);
  }
  return { code };
}

async function compileUnit(name: string, own: JSONSchema4 | boolean): Promise<string> {
  if (typeof own === "boolean") return `export type ${name} = ${own ? "unknown" : "never"};`;
  // The unit's name wins over any title of its own: names are decided by mcpgen, not by jstt.
  const schema = () => shadowOwnKeys({ ...own, title: name }) as JSONSchema4;
  return indent((await compileSchema(schema, name)).replaceAll(OWN_KEY_STANDIN, "hasOwnProperty"));
}

/** json-schema-to-typescript's stages (CommonJS modules under its dist/src/), for `compileSchema`. */
interface Stages {
  /** The stages below are the ones this code was written against (else only `compile` is used). */
  direct: boolean;
  compile: typeof import("json-schema-to-typescript").compile;
  options: Options;
  normalizeNullableRefs(schema: JSONSchema4): void;
  link(schema: JSONSchema4): JSONSchema4;
  validate(schema: JSONSchema4, name: string): string[];
  normalize(schema: JSONSchema4, dereferenced: WeakMap<object, string>, name: string, options: Options): JSONSchema4;
  parse(schema: JSONSchema4, options: Options, key: undefined, processed: Map<unknown, unknown>, usedNames: Set<string>): unknown;
  nameAnonymousRecursiveTypes(ast: unknown, processed: Map<unknown, unknown>, dereferenced: WeakMap<object, string>, usedNames: Set<string>): void;
  optimize(ast: unknown, options: Options): unknown;
  generate(ast: unknown, options: Options): string;
}

// Loaded on first use: a build whose types all come from the cache never pays for it (nor, bundled, for
// reading json-schema-to-typescript's code: a dynamic import is a file of its own in the bundle).
let stages: Promise<Stages> | undefined;
/**
 * The json-schema-to-typescript release whose internal stages `compileSchema` calls (they are not its public
 * API). With any other release, or if a stage is missing, every unit goes through its public `compile()`:
 * slower, never different.
 */
const STAGES_RELEASE = "16.0.0";
function loadStages(): Promise<Stages> {
  return (stages ??= import("./jstt.cjs").then(({ default: loadJstt }) => stagesOf(loadJstt((version) => version === STAGES_RELEASE))));
}

function stagesOf({ index: jstt, stages: modules }: ReturnType<typeof import("./jstt.cjs")>): Stages {
  const { normalizer = {}, parser = {}, linker = {}, validator = {}, optimizer = {}, generator = {} } = modules ?? {};
  const loaded = {
    compile: jstt.compile,
    // The options merged once: json-schema-to-typescript's defaults, mcpgen's on top (all top-level values,
    // so a spread makes what its own deep `merge` of them makes).
    options: { ...jstt.DEFAULT_OPTIONS, ...options } as Options,
    normalizeNullableRefs: normalizer.normalizeNullableRefs,
    link: linker.link,
    validate: validator.validate,
    normalize: normalizer.normalize,
    parse: parser.parse,
    nameAnonymousRecursiveTypes: parser.nameAnonymousRecursiveTypes,
    optimize: optimizer.optimize,
    generate: generator.generate,
  };
  const complete = modules !== undefined && Object.values(loaded).every((member) => member !== undefined);
  return { ...loaded, direct: complete } as Stages;
}

/**
 * `compile(schema, name, options)` of json-schema-to-typescript, its stages called one by one to leave out
 * what a type unit never needs: a unit holds no `$ref` (units.ts makes them `tsType`s), so dereferencing
 * (json-schema-ref-parser walking the whole schema) changes nothing; the schema is a fresh copy
 * (`shadowOwnKeys`), so the deep clone that protects the caller's is not needed; the options are merged
 * once, not per unit; and prettier is off. In a cold 1,000-tool build these were ~0.15 s of CPU. A schema
 * with the text "$ref" anywhere (a property named so, a value of an `x-` keyword, a `default`) and one its
 * validator refuses (`make` gives a fresh copy) go through `compile()` itself.
 */
async function compileSchema(make: () => JSONSchema4, name: string): Promise<string> {
  const jstt = await loadStages();
  const schema = make();
  if (!jstt.direct || JSON.stringify(schema).includes('"$ref"')) return jstt.compile(schema, name, options);
  jstt.normalizeNullableRefs(schema);
  const linked = jstt.link(schema);
  if (jstt.validate(linked, name).length) return jstt.compile(make(), name, options);
  const dereferenced = new WeakMap<object, string>();
  const normalized = jstt.normalize(linked, dereferenced, name, jstt.options);
  const processed = new Map<unknown, unknown>();
  const usedNames = new Set<string>();
  const parsed = jstt.parse(normalized, jstt.options, undefined, processed, usedNames);
  jstt.nameAnonymousRecursiveTypes(parsed, processed, dereferenced, usedNames);
  return jstt.generate(jstt.optimize(parsed, jstt.options), jstt.options);
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
  for (const [k, v] of Object.entries(value)) {
    const name = k === "hasOwnProperty" ? OWN_KEY_STANDIN : k;
    // An assignment makes the same own property, faster, for every key but "__proto__" (a setter).
    if (name === "__proto__") Object.defineProperty(out, name, { value: shadowOwnKeys(v, k), enumerable: true, writable: true, configurable: true });
    else out[name] = shadowOwnKeys(v, k);
  }
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
