/**
 * Validators: ajv standalone code as plain ESM, one module per tool (input, output), per resource
 * template (variables) and per prompt (arguments). ajv still prints `require("…")` for its runtime helpers
 * in ESM mode (ajv issues #2209, #1976); those become imports. Also checks tools' `examples`.
 */
import standaloneModule from "ajv/dist/standalone/index.js";
import type { Ajv, ValidateFunction } from "ajv";
import type { Dialect } from "../ajv.js";
import { CALL_KEYWORD, createAjv, KNOWN_FORMATS, withCallTargets } from "../ajv.js";
import { cacheKey, jsonDigest, type Cache } from "../cache.js";
import { pointerGet, pointerJoin, type Diagnostic } from "../diagnostics.js";
import type { ToolIR } from "../ir.js";
import { copyJson, walkSchema, type SchemaNode } from "../schema-walk.js";
import { checkExamples, fromRuntime, REGEXP_MODULE, takeExports, URI_HELPER, VALIDATOR_HELPERS, type Example, type Examples, type ValidatorModule } from "./examples.js";
import { matchOutsideLiterals, OBJECT_LITERAL_PROTO, STRING_LITERAL } from "../names.js";
import { plainOwnChecks } from "../own-properties.js";
import { backtrackSafe } from "@mcpgen/runtime/regexp";
import { hasAppliedDefaults, onlyAppliedDefaults, withoutDefaults } from "../defaults.js";
import { container } from "../bundle.js";
import { taggedUnions } from "../tagged-unions.js";
import type { Calls, SharedRequest } from "./shared.js";

export type { ValidatorModule };

// ajv's standalone module is CommonJS: its default export arrives wrapped under plain Node ESM.
type StandaloneCode = (ajv: unknown, refs: Record<string, string>) => string;
const standaloneCode = ((standaloneModule as unknown as { default?: StandaloneCode }).default ??
  standaloneModule) as unknown as StandaloneCode;

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
  examples?: Example[];
  /** By export name, the `$ref`s that call a shared definition's validator instead (emit/shared.ts). */
  calls?: Calls;
}

export type Compiled = { module?: ValidatorModule; diagnostics: Diagnostic[] };

/** What a tool's validator module is compiled from, or why it cannot be. */
export function toolRequest(tool: ToolIR, calls?: Calls): { request?: Request; diagnostics: Diagnostic[] } {
  const file = tool.sources[0]!;
  const schemas: Request["schemas"] = { input: { schema: tool.wire.inputSchema, at: "/inputSchema" } };
  if (tool.wire.outputSchema) schemas.output = { schema: tool.wire.outputSchema, at: "/outputSchema" };
  const examples: Example[] = [];
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
  return { request: { file, dialect: tool.dialect, schemas, ...defaults, examples, ...(calls && { calls }) }, diagnostics };
}

/**
 * The cache key of a module: everything its code depends on. In two parts: the request without its calls (which
 * depend on every tool, see emit/shared.ts), as a digest a tool's emit can keep, and the calls.
 */
export function moduleKey(request: Request): string {
  return moduleKeyOf(requestDigest(request), request.calls);
}

/**
 * `moduleKey` of a request whose `requestDigest` is known. The digest is one already: a module without
 * calls (most) is keyed by it after a prefix hashed once, not by a hash of its own.
 */
export function moduleKeyOf(digest: string, calls: Calls | undefined): string {
  if (!calls || !Object.keys(calls).length) return (uncalledPrefix ??= cacheKey("validator without calls")) + digest;
  return cacheKey("validator", digest, calls);
}
let uncalledPrefix: string | undefined;

/** What a module is made from, its calls left out, as a digest. */
export function requestDigest(request: Request): string {
  const { dialect, coerce = false, defaults = "", schemas, examples = [] } = request;
  return jsonDigest([dialect, coerce, defaults, schemas, examples]);
}

/**
 * One standalone module exporting a validator per schema, cached by content (`key`, when the caller
 * already has it); with `onlyCached`, undefined unless the cache has it. Its examples are checked with the
 * module itself (examples.ts). Given `later`, a module whose examples need no shared definition is not
 * checked here: its check goes into `later`, and whoever checks it caches the module (`settle`).
 */
export function compileModule(request: Request, cache: Cache, onlyCached?: false, key?: string, later?: Deferred): Compiled;
export function compileModule(request: Request, cache: Cache, onlyCached: boolean, key?: string, later?: Deferred): Compiled | undefined;
export function compileModule(request: Request, cache: Cache, onlyCached = false, key = moduleKey(request), later?: Deferred): Compiled | undefined {
  const cached = cache.get(key);
  if (cached !== undefined) return { module: JSON.parse(cached) as ValidatorModule, diagnostics: [] };
  if (onlyCached) return undefined;

  const { file } = request;
  const diagnostics: Diagnostic[] = [];
  const ajv = createAjv(request.dialect, {
    extensionKeywords: extensionKeywords(Object.values(request.schemas).map((s) => s.schema)),
    coerceTypes: request.coerce ?? false,
    useDefaults: request.defaults !== undefined,
    standalone: true,
  });
  // An unknown format is an annotation (check warned about it): registered as `true`, it generates no code.
  for (const format of unknownFormats(Object.values(request.schemas).map((s) => s.schema))) ajv.addFormat(format, true);
  const refs: Record<string, string> = {};
  const targets = new CallTargets(request);
  withCallTargets(targets.resolve, () => {
    for (const [name, { schema, at }] of Object.entries(request.schemas)) {
      try {
        const applied = request.defaults === undefined ? schema : name === request.defaults ? onlyAppliedDefaults(schema) : withoutDefaults(schema);
        ajv.addSchema(forAjv(withCalls(applied, request.dialect, request.calls?.[name]), request.dialect, request.coerce), name);
        ajv.getSchema(name);
        refs[name] = name;
      } catch (error) {
        diagnostics.push({ file, pointer: at, message: `cannot compile: ${(error as Error).message}` });
      }
    }
  });
  if (diagnostics.length) return { diagnostics };
  const module = toEsm(plainOwnChecks(ownKeys(standaloneCode(ajv, refs))));
  const toCheck: Later = { file, module, examples: request.examples ?? [], key };
  if (!toCheck.examples.length) return settle(toCheck, [], cache);
  // A shared definition's validator is compiled here, from the tool's own schema, when an example calls it.
  if (later && module.imports.every(fromRuntime)) {
    later.push(toCheck);
    return { module, diagnostics: [] };
  }
  return settle(toCheck, checkExamples(toCheck, (i) => targets.resolve(`${i.specifier}#${i.name}`)), cache);
}

/** A module whose examples are still to be checked, and its cache key. */
export type Later = Examples & { key: string };
/** Where `compileModule` puts the checks it leaves to its caller. */
type Deferred = { push(examples: Later): void };

/** What a module with its examples checked comes to: cached when they all passed, else their diagnostics. */
export function settle({ module, key }: Later, diagnostics: Diagnostic[], cache: Cache): Compiled {
  if (diagnostics.length) return { diagnostics };
  cache.set(key, JSON.stringify(module));
  return { module, diagnostics };
}

/**
 * A copy of a wire schema in which each `$ref` at a pointer of `calls` is a call of its target instead, and
 * the definitions nothing refers to any more are left out (ajv would compile none of them, but the module
 * would still carry them in the schema it prints).
 */
function withCalls(schema: SchemaNode, dialect: Dialect, calls: Record<string, string> | undefined): SchemaNode {
  if (!calls || !Object.keys(calls).length) return schema;
  if (calls[""] !== undefined) return { [CALL_KEYWORD]: calls[""] };
  const copy = copyJson(schema);
  for (const [pointer, target] of Object.entries(calls)) {
    const node = pointerGet(copy, pointer) as SchemaNode;
    delete node.$ref;
    node[CALL_KEYWORD] = target;
  }
  const c = container(dialect);
  const defs = copy[c] as Record<string, unknown> | undefined;
  if (!defs) return copy;
  const { [c]: _, ...top } = copy;
  const reached = new Set<string>();
  const prefix = `#/${c}/`;
  const visit = (node: unknown) =>
    walkSchema(node, "", (sub) => {
      if (typeof sub.$ref !== "string" || !sub.$ref.startsWith(prefix)) return;
      const name = sub.$ref.slice(prefix.length);
      if (reached.has(name) || !Object.hasOwn(defs, name)) return;
      reached.add(name);
      visit(defs[name]);
    });
  visit(top);
  const kept = Object.keys(defs).filter((n) => reached.has(n));
  return kept.length ? { ...top, [c]: Object.fromEntries(kept.map((n) => [n, defs[n]])) } : top;
}

/**
 * The build-time functions of a request's calls, for checking its examples: each compiles, when first
 * called, the definition the call stands for from the tool's own wire schema (where it is inlined, as it
 * was before calls), in an ajv instance of its own.
 */
class CallTargets {
  private ajv: Ajv | undefined;
  private readonly roots = new Set<string>();
  private readonly functions = new Map<string, ValidateFunction>();
  constructor(private readonly request: Request) {}

  readonly resolve = (target: string): ValidateFunction => {
    let fn = this.functions.get(target);
    if (fn) return fn;
    let compiled: ValidateFunction | undefined;
    const call = ((data: unknown, context: unknown) => {
      compiled ??= this.compile(target);
      const valid = (compiled as (d: unknown, c: unknown) => boolean)(data, context);
      call.errors = compiled.errors ?? null;
      return valid;
    }) as ValidateFunction;
    this.functions.set(target, (fn = call));
    return fn;
  };

  private compile(target: string): ValidateFunction {
    const { request } = this;
    const c = container(request.dialect);
    for (const [which, calls] of Object.entries(request.calls ?? {}))
      for (const [pointer, t] of Object.entries(calls)) {
        if (t !== target) continue;
        const wire = request.schemas[which]!.schema;
        const defaults = target.endsWith("$defaults");
        const rootKey = `${which}-${defaults ? "defaults" : "plain"}`;
        this.ajv ??= createAjv(request.dialect, { extensionKeywords: extensionKeywords([wire]), useDefaults: true });
        if (!this.roots.has(rootKey)) {
          this.roots.add(rootKey);
          for (const format of unknownFormats([wire])) this.ajv.addFormat(format, true);
          // The wire schema itself: its root is the definition where the call stands for the root.
          this.ajv.addSchema(forAjv(defaults ? wire : withoutDefaults(wire), request.dialect), rootKey);
        }
        if (pointer === "") return this.ajv.getSchema(rootKey)!;
        const name = String((pointerGet(wire, pointer) as SchemaNode).$ref).slice(`#/${c}/`.length);
        return this.ajv.getSchema(`${rootKey}#/${c}/${name}`)!;
      }
    throw new Error(`no call to ${target}`);
  }
}

/** A shared module's exports (see emit/shared.ts), compiled once for every validator that calls them. */
export function sharedKey(request: SharedRequest): string {
  return cacheKey("shared", request);
}

export function compileShared(request: SharedRequest, cache: Cache, key = sharedKey(request)): Compiled {
  const cached = cache.get(key);
  if (cached !== undefined) return { module: JSON.parse(cached) as ValidatorModule, diagnostics: [] };
  const c = container(request.dialect);
  const roots = { plain: { [c]: request.plain }, defaults: { [c]: request.defaults } };
  const schemas = [roots.plain, roots.defaults];
  const ajv = createAjv(request.dialect, { extensionKeywords: extensionKeywords(schemas), useDefaults: Object.keys(request.defaults).length > 0, standalone: true });
  for (const format of unknownFormats(schemas)) ajv.addFormat(format, true);
  try {
    const refs: Record<string, string> = {};
    const code = withCallTargets(
      (target) =>
        (() => {
          throw new Error(`${target} is not callable at build time`);
        }) as unknown as ValidateFunction,
      // Nothing runs a shared module's functions: calls from examples compile their targets themselves.
      () => {
        for (const [name, root] of Object.entries(roots)) if (Object.keys(root[c]!).length) ajv.addSchema(forAjv(root, request.dialect), name);
        for (const [name, { root, name: def }] of Object.entries(request.exports)) {
          refs[name] = `${root}#/${c}/${def}`;
          ajv.getSchema(refs[name]);
        }
        return standaloneCode(ajv, refs);
      },
    );
    const module = toEsm(hoistedExports(plainOwnChecks(ownKeys(code))));
    cache.set(key, JSON.stringify(module));
    return { module, diagnostics: [] };
  } catch (error) {
    return { diagnostics: [{ file: request.file, pointer: "", message: `cannot compile its shared definitions: ${(error as Error).message}` }] };
  }
}

/** A `require("…")` of ajv's code, and the member read of what it returns, if any. */
const REQUIRE = new RegExp(String.raw`require\((${STRING_LITERAL})\)(\.default\b|\.[A-Za-z_$][\w$]*)?`, "g");

/**
 * `export const task = validate0;` → `export { validate0 as task };`: a function declaration is bound before
 * any module code runs, so two defs files that refer to each other make modules that import each other safely.
 */
function hoistedExports(code: string): string {
  const { body, exports } = takeExports(code);
  let stray = false;
  matchOutsideLiterals(body, /\bexport\b/g, () => (stray = true));
  if (stray) throw new Error("ajv's standalone exports changed shape");
  return `${body}export { ${exports.map(([name, fn]) => `${fn} as ${name}`).join(", ")} };`;
}

/**
 * What ajv compiles of a schema: `__proto__` as a pattern, tagged unions picked by their tag (not when coercing
 * types). Both look for their keywords in the schema's text first, made once here.
 */
function forAjv(schema: SchemaNode, dialect: Dialect, coerce = false): SchemaNode {
  const text = JSON.stringify(schema);
  const own = protoAsPattern(schema, text);
  return coerce ? own : taggedUnions(own, dialect, text);
}

/**
 * ajv skips a property named "__proto__" (its `properties` code filters the name out), so its schema would
 * never be checked and `additionalProperties: false` would refuse it. For ajv only, such a property moves
 * to `patternProperties` under an exact pattern, which ajv does check; the wire schema keeps it as it is.
 */
function protoAsPattern(schema: SchemaNode, text: string): SchemaNode {
  if (!text.includes('"__proto__"')) return schema;
  const copy = copyJson(schema);
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

/** What ajv's standalone output requires → the helper of the runtime that stands for it, and its module. */
const HELPERS: Record<string, [name: string, module: string]> = {
  "ajv/dist/runtime/equal": ["equal", VALIDATOR_HELPERS],
  "ajv/dist/runtime/ucs2length": ["ucs2length", VALIDATOR_HELPERS],
  "ajv/dist/runtime/uri": ["uri", URI_HELPER],
  "ajv/dist/runtime/validation_error": ["ValidationError", VALIDATOR_HELPERS],
  "ajv-formats/dist/formats": ["formats", VALIDATOR_HELPERS],
};

/**
 * ajv's standalone code, safe for data keyed by user names: a schema printed as an object literal
 * (`{"__proto__": …}`) would set its prototype rather than a key. And `uniqueItems` is mcpgen's
 * (`unique-items.ts`): ajv's own indexed string items in a plain object, where `"__proto__"` is never a key,
 * so `["__proto__", "__proto__"]` passed; if its code ever shows up here, this throws rather than letting that
 * hole back in (test/compiler/units.test.ts holds the behaviour).
 */
export function ownKeys(code: string): string {
  if (code.includes("indices") && /\bindices\d*\s*=\s*\{/.test(code)) throw new Error("ajv's uniqueItems code is back: its index object has a prototype");
  return code.includes('"__proto__":') ? code.replace(OBJECT_LITERAL_PROTO, '["__proto__"]:') : code;
}

/**
 * Turns every `require("x")` in ajv's output into an import of the helper the runtime exports for `x`:
 * `require("x").default` is the helper itself (ajv's helpers are CommonJS modules with `exports.default`;
 * the runtime unwraps them), ajv-formats' `require("x")` the module object, and mcpgen's own `uniqueItems`
 * requires the runtime's `duplicateItems` by name. The pattern engine is `REGEXP_MODULE`'s, RE2 for what
 * V8 could backtrack on, only where a pattern needs it (`patternEngine`). A require of anything else is an
 * error, so a new ajv helper cannot slip into a server as an undeclared dependency.
 */
export function toEsm(code: string): ValidatorModule {
  const bindings = new Map<string, { name: string; binding: string; specifier: string }>();
  const bind = (name: string, specifier: string, prefix: string) => {
    const id = `${specifier}#${name}`;
    let entry = bindings.get(id);
    if (!entry) bindings.set(id, (entry = { name, binding: `${prefix}${[...bindings.values()].filter((b) => b.binding.startsWith(prefix)).length}`, specifier }));
    return entry.binding;
  };
  const body = code
    .replace(/^"use strict";/, "")
    .replace(REQUIRE, (_, literal: string, property: string | undefined) => {
      const required = JSON.parse(literal) as string;
      // A shared definition's validator (emit/shared.ts): `require("./defs/x.gen.js").name`.
      if (/^\.\/(?:defs\/)?[A-Za-z0-9_]+\.gen\.js$/.test(required) && property && property !== ".default") return bind(property.slice(1), required, "shared");
      if (required === VALIDATOR_HELPERS && property === ".duplicateItems") return bind("duplicateItems", VALIDATOR_HELPERS, "runtime");
      if (required === REGEXP_MODULE && property === ".default") return bind("regExp", patternEngine(code), "runtime");
      const specifier = required.replace(/\.js$/, "");
      const helper = HELPERS[specifier];
      if (helper === undefined) throw new Error(`ajv standalone output requires ${specifier}, which the runtime does not provide`);
      return bind(...helper, "runtime") + (property === ".default" ? "" : (property ?? ""));
    });
  if (/\brequire\s*\(/.test(body)) throw new Error("ajv standalone output still calls require()");
  // The runtime's modules first, then the shared definitions, each in the order of first use.
  const imports = [...bindings.values()];
  return { imports: [...imports.filter(fromRuntime), ...imports.filter((i) => !fromRuntime(i))], body };
}

/** ajv's binding of the pattern engine: `const func2 = require("@mcpgen/runtime/regexp").default;`. */
const ENGINE_BINDING = new RegExp(String.raw`\bconst (\w+) = require\(${JSON.stringify(REGEXP_MODULE)}\)\.default;`, "g");

/**
 * Where `code` takes its pattern engine (`regExp`) from: the validator helpers, V8's `RegExp` alone, when
 * each of its patterns is backtrack-safe, else the runtime's RE2 engine, whose module (and re2js) the server
 * then loads with this validator. ajv compiles each pattern once, as `const patternN = funcM("<pattern>", "u");`;
 * code that uses the engine any other way keeps the RE2 engine.
 */
function patternEngine(code: string): string {
  const bindings = [...code.matchAll(ENGINE_BINDING)];
  if (bindings.length !== 1) return REGEXP_MODULE;
  const engine = bindings[0]![1]!;
  const uses = code.split(new RegExp(String.raw`\b${engine}\b`)).length - 2; // besides its binding
  const calls = [...code.matchAll(new RegExp(String.raw`\b${engine}\((${STRING_LITERAL}), "u"\)`, "g"))];
  return calls.length === uses && calls.every((call) => backtrackSafe(JSON.parse(call[1]!) as string)) ? VALIDATOR_HELPERS : REGEXP_MODULE;
}
