/**
 * Validators: ajv standalone code as plain ESM, one module per tool (input, output), per resource
 * template (variables) and per prompt (arguments). ajv still prints `require("…")` for its runtime helpers
 * in ESM mode (ajv issues #2209, #1976); those become imports. Also checks tools' `examples`.
 */
import standaloneModule from "ajv/dist/standalone/index.js";
import type { Dialect } from "../ajv.js";
import { ajvDiagnostics, createAjv, KNOWN_FORMATS, REGEXP_MODULE } from "../ajv.js";
import { cacheKey, type Cache } from "../cache.js";
import { pointerJoin, type Diagnostic } from "../diagnostics.js";
import type { ToolIR } from "../ir.js";
import { walkSchema, type SchemaNode } from "../schema-walk.js";
import { OBJECT_LITERAL_PROTO } from "../names.js";
import { hasAppliedDefaults, onlyAppliedDefaults, withoutDefaults } from "../defaults.js";

// ajv's standalone module is CommonJS: its default export arrives wrapped under plain Node ESM.
type StandaloneCode = (ajv: unknown, refs: Record<string, string>) => string;
const standaloneCode = ((standaloneModule as unknown as { default?: StandaloneCode }).default ??
  standaloneModule) as unknown as StandaloneCode;

export interface ValidatorModule {
  imports: { name: string; binding: string; specifier: string }[];
  body: string;
}

export interface Request {
  /** Source file, for diagnostics. */
  file: string;
  dialect: Dialect;
  /** Export name → schema and its pointer in `file`. */
  schemas: Record<string, { schema: SchemaNode; at: string }>;
  /** Coerce strings to the declared types (URI template variables arrive as strings). */
  coerce?: boolean;
  /** The export that fills in missing properties from their `default`s (see defaults.ts); the others apply none. */
  defaults?: string;
  /** Values to check, by export name: each must be valid. */
  examples?: { against: string; value: unknown; at: string }[];
}

export type Compiled = { module?: ValidatorModule; diagnostics: Diagnostic[] };

/** What a tool's validator module is compiled from, or why it cannot be. */
export function toolRequest(tool: ToolIR): { request?: Request; diagnostics: Diagnostic[] } {
  const file = tool.sources[0]!;
  const schemas: Request["schemas"] = { input: { schema: tool.wire.inputSchema, at: "/inputSchema" } };
  if (tool.wire.outputSchema) schemas.output = { schema: tool.wire.outputSchema, at: "/outputSchema" };
  const examples: NonNullable<Request["examples"]> = [];
  const diagnostics: Diagnostic[] = [];
  for (const [which, { schema, at }] of Object.entries(schemas)) {
    const own = (schema as { examples?: unknown }).examples;
    if (Array.isArray(own)) own.forEach((value, i) => examples.push({ against: which, value, at: pointerJoin(at, "examples", i) }));
  }
  tool.examples.forEach((ex, i) => {
    examples.push({ against: "input", value: ex.input, at: pointerJoin("/examples", i, "input") });
    if (ex.error !== undefined && ex.isError !== true)
      diagnostics.push({ file, pointer: pointerJoin("/examples", i, "error"), message: 'example has an "error" text but is not "isError": true' });
    if (ex.output === undefined) return;
    if (ex.isError === true) {
      diagnostics.push({ file, pointer: pointerJoin("/examples", i, "output"), message: 'an "isError": true example has no output (check the error text with "error")' });
      return;
    }
    if (tool.wire.outputSchema) examples.push({ against: "output", value: ex.output, at: pointerJoin("/examples", i, "output") });
    else diagnostics.push({ file, pointer: pointerJoin("/examples", i, "output"), message: "example has an output but the tool has no outputSchema" });
  });
  if (diagnostics.length) return { diagnostics };
  const defaults = hasAppliedDefaults(tool.wire.inputSchema) ? { defaults: "input" } : {};
  return { request: { file, dialect: tool.dialect, schemas, ...defaults, examples }, diagnostics };
}

/** The cache key of a module: everything its code depends on. */
export function moduleKey(request: Request): string {
  return cacheKey("validator", request.dialect, request.coerce ?? false, request.defaults ?? "", request.schemas, request.examples ?? []);
}

/**
 * One standalone module exporting a validator per schema, cached by content (`key`, when the caller
 * already has it); with `onlyCached`, undefined unless the cache has it.
 */
export function compileModule(request: Request, cache: Cache, onlyCached?: false, key?: string): Compiled;
export function compileModule(request: Request, cache: Cache, onlyCached: boolean, key?: string): Compiled | undefined;
export function compileModule(request: Request, cache: Cache, onlyCached = false, key = moduleKey(request)): Compiled | undefined {
  const cached = cache.get(key);
  if (cached !== undefined) return { module: JSON.parse(cached) as ValidatorModule, diagnostics: [] };
  if (onlyCached) return undefined;

  const { file } = request;
  const diagnostics: Diagnostic[] = [];
  const ajv = createAjv(request.dialect, extensionKeywords(Object.values(request.schemas).map((s) => s.schema)), request.coerce, request.defaults !== undefined);
  // An unknown format is an annotation (check warned about it): registered as `true`, it generates no code.
  for (const format of unknownFormats(Object.values(request.schemas).map((s) => s.schema))) ajv.addFormat(format, true);
  const refs: Record<string, string> = {};
  for (const [name, { schema, at }] of Object.entries(request.schemas)) {
    try {
      const applied = request.defaults === undefined ? schema : name === request.defaults ? onlyAppliedDefaults(schema) : withoutDefaults(schema);
      ajv.addSchema(protoAsPattern(applied), name);
      ajv.getSchema(name);
      refs[name] = name;
    } catch (error) {
      diagnostics.push({ file, pointer: at, message: `cannot compile: ${(error as Error).message}` });
    }
  }
  for (const { against, value, at } of request.examples ?? []) {
    const validate = refs[against] && ajv.getSchema(against);
    if (!validate || validate(structuredClone(value))) continue;
    diagnostics.push(
      ...ajvDiagnostics(validate.errors, file, "").map((d) => ({
        file,
        pointer: at,
        message: `example does not match the ${against}Schema: ${d.pointer || "(root)"} ${d.message}`,
      })),
    );
  }
  if (diagnostics.length) return { diagnostics };
  const module = toEsm(ownKeys(standaloneCode(ajv, refs)));
  cache.set(key, JSON.stringify(module));
  return { module, diagnostics };
}

/**
 * ajv skips a property named "__proto__" (its `properties` code filters the name out), so its schema would
 * never be checked and `additionalProperties: false` would refuse it. For ajv only, such a property moves
 * to `patternProperties` under an exact pattern, which ajv does check; the wire schema keeps it as it is.
 */
function protoAsPattern(schema: SchemaNode): SchemaNode {
  if (!JSON.stringify(schema).includes('"__proto__"')) return schema;
  const copy = structuredClone(schema);
  walkSchema(copy, "", (node) => {
    const properties = node.properties;
    if (properties === null || typeof properties !== "object" || !Object.hasOwn(properties, "__proto__")) return;
    const own = (properties as Record<string, unknown>)["__proto__"];
    delete (properties as Record<string, unknown>)["__proto__"];
    const patterns = Object.assign(Object.create(null) as Record<string, unknown>, node.patternProperties);
    patterns["^__proto__$"] = Object.hasOwn(patterns, "^__proto__$") ? { allOf: [patterns["^__proto__$"], own] } : own;
    node.patternProperties = { ...patterns };
  });
  return copy;
}

function unknownFormats(schemas: SchemaNode[]): Set<string> {
  const found = new Set<string>();
  for (const schema of schemas) walkSchema(schema, "", (node) => typeof node.format === "string" && !KNOWN_FORMATS.has(node.format) && found.add(node.format));
  return found;
}

function extensionKeywords(schemas: SchemaNode[]): Set<string> {
  const found = new Set<string>();
  for (const schema of schemas) walkSchema(schema, "", (node) => Object.keys(node).forEach((k) => k.startsWith("x-") && found.add(k)));
  return found;
}

/** Where generated validators import ajv's runtime helpers from: the runtime re-exports them. */
export const VALIDATOR_HELPERS = "@mcpgen/runtime/validators";

/** What ajv's standalone output requires → the helper exported by `VALIDATOR_HELPERS` that stands for it. */
const HELPERS: Record<string, string> = {
  "ajv/dist/runtime/equal": "equal",
  "ajv/dist/runtime/ucs2length": "ucs2length",
  "ajv/dist/runtime/uri": "uri",
  "ajv/dist/runtime/validation_error": "ValidationError",
  "ajv-formats/dist/formats": "formats",
  [REGEXP_MODULE]: "regExp",
};

/**
 * ajv's standalone code, safe for data keyed by user names. `uniqueItems` over strings counts items in a
 * plain object (`const indices0 = {}`), where `"__proto__"` is never a key, so `["__proto__", "__proto__"]`
 * passed; those objects get no prototype. And a schema printed as an object literal (`{"__proto__": …}`)
 * would set its prototype rather than a key. If ajv's output ever changes shape, this throws rather than
 * letting the hole back in (test/compiler/units.test.ts holds the behaviour).
 */
export function ownKeys(code: string): string {
  const out = code.replace(/\b(const|let) (indices\d*) = \{\};/g, "$1 $2 = Object.create(null);").replace(OBJECT_LITERAL_PROTO, '["__proto__"]:');
  if (/\bindices\d*\s*=\s*\{/.test(out)) throw new Error("ajv's uniqueItems code changed shape: its index object would have a prototype");
  return out;
}

/**
 * Turns every `require("x")` in ajv's output into an import of the helper the runtime exports for `x`:
 * `require("x").default` is the helper itself (ajv's helpers are CommonJS modules with `exports.default`;
 * the runtime unwraps them), ajv-formats' `require("x")` the module object. A require of anything else is
 * an error, so a new ajv helper cannot slip into a server as an undeclared dependency.
 */
export function toEsm(code: string): ValidatorModule {
  const bindings = new Map<string, string>();
  const body = code
    .replace(/^"use strict";/, "")
    .replace(/require\(("(?:[^"\\]|\\.)*")\)(\.default\b)?/g, (_, literal: string) => {
      const specifier = (JSON.parse(literal) as string).replace(/\.js$/, "");
      const name = HELPERS[specifier];
      if (name === undefined) throw new Error(`ajv standalone output requires ${specifier}, which the runtime does not provide`);
      let binding = bindings.get(name);
      if (!binding) bindings.set(name, (binding = `runtime${bindings.size}`));
      return binding;
    });
  if (/\brequire\s*\(/.test(body)) throw new Error("ajv standalone output still calls require()");
  const imports = [...bindings].map(([name, binding]) => ({ name, binding, specifier: VALIDATOR_HELPERS }));
  return { imports, body };
}
