/** The ajv instances mcpgen compiles with, one per supported JSON Schema dialect. */
import { _, Ajv, Name, type KeywordCxt, type Options, type ValidateFunction } from "ajv";
import { getProperty, strConcat } from "ajv/dist/compile/codegen/code.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { ValueScope } from "ajv/dist/compile/codegen/index.js";
import addFormatsModule from "ajv-formats";
import { fullFormats } from "ajv-formats/dist/formats.js";
import { REGEXP_MODULE, VALIDATOR_HELPERS } from "./emit/examples.js";
import { equalityKeywords } from "./equality.js";
import { limitLength } from "./limit-length.js";
import { uniqueItems } from "./unique-items.js";
import regExp from "@mcpgen/runtime/regexp";
import { duplicateItems, equal, formats } from "@mcpgen/runtime/validators";

export type Dialect = "2020-12" | "draft-07";

export const DIALECT_URIS: Record<string, Dialect> = {
  "https://json-schema.org/draft/2020-12/schema": "2020-12",
  "https://json-schema.org/draft/2020-12/schema#": "2020-12",
  "http://json-schema.org/draft-07/schema": "draft-07",
  "http://json-schema.org/draft-07/schema#": "draft-07",
};

export const KNOWN_FORMATS = new Set(Object.keys(fullFormats));

// ajv-formats is CommonJS: its default export arrives wrapped under plain Node ESM.
export const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as <T extends Ajv>(ajv: T) => T;

/** How schemas are compiled (and how the meta-schemas that check them were, see scripts/meta-validators.mjs). */
export const COMPILE_OPTIONS: Options = {
  // Standalone code: formats are referenced from ajv-formats, which `emit` turns into an ESM import.
  // optimize: false skips ajv's code-simplification passes: builds ~40% faster for ~8% more code.
  code: { source: true, esm: true, lines: false, optimize: false, formats: _`require("ajv-formats/dist/formats").fullFormats` },
  strict: true,
  strictTypes: false,
  strictTuples: false,
  // `required` may name a property declared elsewhere (an anyOf branch requiring a top-level property).
  strictRequired: false,
  allErrors: true,
  validateFormats: true,
  // A property named like an Object.prototype member ("constructor", "toString") must not be read
  // from the prototype of every input.
  ownProperties: true,
};

/**
 * ajv's `code.regExp`: patterns compile with the runtime's linear-time engine at build time too (examples
 * are checked with it), and standalone code calls it through an import of `REGEXP_MODULE`.
 */
export const PATTERN_ENGINE = Object.assign((pattern: string, flags: string) => regExp(pattern, flags), {
  code: `require(${JSON.stringify(REGEXP_MODULE)}).default`,
});

/**
 * `const` and `enum` over objects and arrays (equality.ts): the runtime's `equal`, in process and in
 * standalone code, which requires it as ajv's helper (`toEsm` imports it from the runtime as before).
 */
const EQUAL = Object.assign((a: unknown, b: unknown) => equal(a, b), { code: 'require("ajv/dist/runtime/equal").default' });

/** `uniqueItems` over items of any type (unique-items.ts): the runtime's helper, in process and in standalone code. */
const DUPLICATE_ITEMS = Object.assign((items: readonly unknown[]) => duplicateItems(items), {
  code: `require(${JSON.stringify(VALIDATOR_HELPERS)}).duplicateItems`,
});

/**
 * A call to a validator compiled in another module: `{"mcpgen:call": "<specifier>#<export>"}` stands where a
 * `$ref` to a shared definition was (emit/shared.ts). Its standalone code references the function as
 * `require("<specifier>").<export>`, which `toEsm` turns into an import, calls it as ajv calls the function
 * of a `$ref` (ajv/lib/vocabularies/core/ref.ts, `callRef`) and appends its errors.
 */
export const CALL_KEYWORD = "mcpgen:call";

/**
 * The function a call stands for while compiling (examples are checked at build time): set by whoever
 * compiles a schema holding calls, for the duration of that compilation.
 */
let callTarget: ((target: string) => ValidateFunction) | undefined;
export function withCallTargets<T>(resolve: (target: string) => ValidateFunction, compile: () => T): T {
  const before = callTarget;
  callTarget = resolve;
  try {
    return compile();
  } finally {
    callTarget = before;
  }
}

/**
 * ajv's `code.process` for an instance whose functions never run. ajv makes each validator a function,
 * `new Function` over its code, which V8 parses on the spot; standalone code is made from ajv's code, not
 * from that function, and examples run the standalone code (emit/examples.ts). So the function only throws:
 * in a cold build of 1,000 tools, ~0.2 s less CPU than parsing them all.
 */
function standaloneOnly(source: string): string {
  // ajv's references to its scope come first, then `return function validateN(…){…}`.
  const name = /return function ([\w$]+)\(/.exec(source)?.[1];
  return name === undefined ? source : `return function ${name}() { throw new Error("mcpgen: ${name} was compiled for its standalone code only"); }`;
}

// ajv's names in generated code (ajv/lib/compile/names.ts): the errors so far, and a validator's context.
const N = {
  vErrors: new Name("vErrors"),
  errors: new Name("errors"),
  instancePath: new Name("instancePath"),
  parentData: new Name("parentData"),
  parentDataProperty: new Name("parentDataProperty"),
  rootData: new Name("rootData"),
  dynamicAnchors: new Name("dynamicAnchors"),
};

/**
 * The context of a call that need not say where its data is: a path no error path can be (those are "" or
 * start with "/"), which the callee passes on to its own calls (ajv's contexts extend the caller's path).
 */
const QUICK = Object.freeze({ instancePath: "\u0000" });
/**
 * `rootData` of a call that has to say where its data is (its quick call failed): ajv passes `rootData` on
 * unchanged, so no call below it tries a quick call first.
 */
const ERRORS_WANTED = Symbol.for("mcpgen:errors-wanted");

/**
 * A call's context tells the callee the path of its data, for the errors it reports: ajv builds one per
 * call, and the path as a new string (`/tasks/3`), a quarter of the time it takes to validate a list of
 * ten small objects (BENCHMARKS.md, "Every row against the limit"). A path is needed only when the data is
 * invalid, so a call first runs with the constant `QUICK` context, and only if that fails again with its
 * whole context, whose errors are reported. The callee's own calls run as it does: quick in a quick call
 * (whose errors are never read), whole under a call that failed (`ERRORS_WANTED`), so invalid data costs
 * two passes, not one per level it is nested at. Inside a composition, where a failing branch is no
 * failure, calls run with their whole context from the start. Calls exist only where the context means
 * nothing else: no `$data` (`rootData`), no coercion or keyword that writes to the parent (`parentData`),
 * no dynamic references (`dynamicAnchors`; emit/shared.ts).
 */
function callCode(cxt: KeywordCxt): void {
  const { gen, data, it } = cxt;
  const target = cxt.schema as string;
  const hash = target.lastIndexOf("#");
  const resolve = callTarget;
  if (!resolve || hash < 0) throw new Error(`${CALL_KEYWORD}: nothing to call for ${JSON.stringify(target)}`);
  const code = _`require(${target.slice(0, hash)})${getProperty(target.slice(hash + 1))}`;
  const fn = gen.scopeValue("func", { key: target, ref: resolve(target), code });
  const quick = gen.scopeValue("obj", { key: QUICK, ref: QUICK, code: _`{instancePath: "\\u0000"}` });
  const wanted = gen.scopeValue("obj", { key: ERRORS_WANTED, ref: ERRORS_WANTED, code: _`Symbol.for("mcpgen:errors-wanted")` });
  const whole = gen.object(
    [N.instancePath, strConcat(N.instancePath, it.errorPath)],
    [N.parentData, it.parentData],
    [N.parentDataProperty, it.parentDataProperty],
    [N.rootData, wanted],
    ...(it.opts.dynamicRef ? [[N.dynamicAnchors, N.dynamicAnchors] as [Name, Name]] : []),
  );
  // Inside anyOf, oneOf, not, if or contains, a call that fails is no error of the whole (another branch may
  // pass): trying it quick first would run most failing branches twice, so it runs as ajv's, with its context.
  const call = it.compositeRule
    ? _`(${N.instancePath}.charCodeAt(0) === 0 ? ${fn}(${data}, ${quick}) : ${fn}(${data}, ${whole}))`
    : _`(${N.instancePath}.charCodeAt(0) === 0 ? ${fn}(${data}, ${quick}) : ${N.rootData} !== ${wanted} && ${fn}(${data}, ${quick}) || ${fn}(${data}, ${whole}))`;
  cxt.result(call, undefined, () => {
    gen.assign(N.vErrors, _`${N.vErrors} === null ? ${fn}.errors : ${N.vErrors}.concat(${fn}.errors)`);
    gen.assign(N.errors, _`${N.vErrors}.length`);
  });
}

const compilers = new Map<string, { ajv: Ajv; keywords: Set<string> }>();

export interface AjvOptions {
  /** `x-` keywords the schemas use (annotations). */
  extensionKeywords?: Iterable<string>;
  coerceTypes?: boolean;
  useDefaults?: boolean;
  /** For standalone code only: its functions throw when called, and cost no parsing (see `standaloneOnly`). */
  standalone?: boolean;
}

/**
 * A compiling instance in the state of a fresh one. Each tool gets that, so that the names in its
 * standalone code (`validate0`, `schema1`, ...) depend on that tool alone: same input, same bytes, cached or
 * not, whatever was compiled before. A new Ajv per tool costs a quarter of a millisecond, so one instance
 * per dialect is kept and emptied instead: its schemas removed, and its scope of generated names (ajv's
 * `ValueScope`, which numbers them) replaced by a new one. The golden fixtures (several tools each, their
 * bytes first made with an Ajv per tool) hold it to that.
 */
export function createAjv(dialect: Dialect, options: AjvOptions = {}): Ajv {
  const { extensionKeywords = [], coerceTypes = false, useDefaults = false, standalone = false } = options;
  const id = `${dialect} ${coerceTypes} ${useDefaults} ${standalone}`;
  let compiler = compilers.get(id);
  if (!compiler) {
    // `check` already validated every schema against its meta-schema (precompiled, meta-validators.ts), so
    // this one neither validates schemas nor needs the meta-schemas (`meta: false`).
    const code = { ...COMPILE_OPTIONS.code, regExp: PATTERN_ENGINE, ...(standalone && { process: standaloneOnly }) };
    const opts: Options = { ...COMPILE_OPTIONS, code, meta: false, validateSchema: false, ...(coerceTypes && { coerceTypes: true }), ...(useDefaults && { useDefaults: true }) };
    const ajv = addFormats(dialect === "2020-12" ? new Ajv2020(opts) : new Ajv(opts));
    // ajv-formats' `url` is a regular expression, which ajv would copy into the generated code: V8 takes time
    // quadratic in the text on it. The runtime's check gives the same verdicts in linear time.
    ajv.addFormat("url", formats.fullFormats.url);
    ajv.addKeyword({ keyword: CALL_KEYWORD, schemaType: "string", code: callCode });
    for (const keyword of ["uniqueItems", "minLength", "maxLength", "const", "enum"]) ajv.removeKeyword(keyword);
    ajv.addKeyword(uniqueItems(DUPLICATE_ITEMS));
    ajv.addKeyword(limitLength);
    for (const keyword of equalityKeywords(EQUAL)) ajv.addKeyword(keyword);
    compilers.set(id, (compiler = { ajv, keywords: new Set() }));
  } else {
    const { ajv } = compiler;
    ajv.removeSchema();
    const { _prefixes: prefixes } = ajv.scope as unknown as { _prefixes: Set<string> };
    (ajv as { scope: ValueScope }).scope = new ValueScope({ scope: {}, prefixes, es5: ajv.opts.code.es5 ?? false, lines: ajv.opts.code.lines ?? false });
  }
  // `x-` extension keywords are annotations; registering them lets strict mode accept them (they generate
  // no code, so one registered for an earlier tool changes nothing). So is `$anchor` here: ajv does not
  // resolve anchors, and normalize has rewritten every anchor ref to a pointer.
  for (const keyword of ["$anchor", ...extensionKeywords])
    if (!compiler.keywords.has(keyword)) compiler.keywords.add((compiler.ajv.addKeyword(keyword), keyword));
  return compiler.ajv;
}

/** How mcpgen's own file meta-schemas (meta-schemas.ts) were compiled. */
export const FILE_CHECK_OPTIONS: Options = { allErrors: true, strict: false };
