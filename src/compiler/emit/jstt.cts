/**
 * json-schema-to-typescript's modules, for types.ts. A CommonJS module, as json-schema-to-typescript is: each of
 * its `require` calls names the module it loads, so the CLI's bundle (scripts/bundle.mjs) inlines them, and
 * from dist/ they load from node_modules as any `require` does. Nothing loads before `loadJstt()` is called.
 */
import type * as Jstt from "json-schema-to-typescript";
import nodeModule = require("node:module");

/**
 * Loads json-schema-to-typescript; its stage modules too when `withStages(version)` says the release is one
 * whose stages the caller knows.
 */
function loadJstt(withStages: (version: string) => boolean): loadJstt.Modules {
  const load = () => require("json-schema-to-typescript") as loadJstt.Index;
  // Node's loader runs json-schema-to-typescript's `require` calls when it runs this module's: not in the
  // CLI's bundle (whose `module` is the bundler's, without a file name), where they were resolved when it
  // was made, to the same stand-ins (scripts/bundle.mjs).
  const index = typeof module.filename === "string" ? withStandIns(load) : load();
  const version = (require("json-schema-to-typescript/package.json") as { version: string }).version;
  if (!withStages(version)) return { index, version, stages: undefined };
  const stage = (get: () => unknown) => {
    try {
      return get() as Record<string, unknown>;
    } catch {
      return undefined;
    }
  };
  return {
    index,
    version,
    // Each path written out: a bundler follows only a `require` of a literal.
    stages: {
      normalizer: stage(() => require("json-schema-to-typescript/dist/src/normalizer.js")),
      parser: stage(() => require("json-schema-to-typescript/dist/src/parser.js")),
      linker: stage(() => require("json-schema-to-typescript/dist/src/linker.js")),
      validator: stage(() => require("json-schema-to-typescript/dist/src/validator.js")),
      optimizer: stage(() => require("json-schema-to-typescript/dist/src/optimizer.js")),
      generator: stage(() => require("json-schema-to-typescript/dist/src/generator.js")),
    },
  };
}

namespace loadJstt {
  /** json-schema-to-typescript's public module, with the default options it does not declare. */
  export type Index = typeof Jstt & { DEFAULT_OPTIONS: Jstt.Options };

  export interface Modules {
    index: Index;
    version: string;
    /** The stage modules under its dist/src/ (not its public API), by name; `undefined` for one that failed to load. */
    stages: Record<"normalizer" | "parser" | "linker" | "validator" | "optimizer" | "generator", Record<string, unknown> | undefined> | undefined;
  }
}

export = loadJstt;

/**
 * What json-schema-to-typescript requires while it loads but mcpgen's calls never reach, replaced by stand-ins
 * for that time (unless something loaded the real module before):
 * - prettier, for its `format` option, which mcpgen leaves off: its CommonJS entry starts importing its whole
 *   ES module build at once, ~30 ms of the main thread in every build that compiles a type, and the process
 *   could exit only once that import was done (~25 ms more after an edit of the 1,000-tool bench fixture).
 *   The stand-in is empty.
 * - json-schema-ref-parser (48 modules), which only its dereferencing stage uses: `compileSchema` skips that
 *   stage, and only the public `compile()` (a unit with the text "$ref", another release) runs it. The
 *   stand-in loads the real module on first use. Loading it cost ~20 ms of every build that compiles a type.
 * - js-yaml, which it uses only to read a schema file named `.yaml` (`compileFromFile`, its CLI), never on a
 *   schema object as mcpgen passes it. While it loads, it makes the YAML schema it would read those files
 *   with (`CORE_SCHEMA.withTags(<tags>)`); the stand-in answers that and loads the real module on any other
 *   use, which then reads YAML with its default schema. Loading js-yaml cost ~5 ms of every process that
 *   compiles a type.
 * Each stand-in then leaves the module cache, so whatever asks for the module later gets the real one.
 */
function withStandIns<T>(load: () => T): T {
  // Resolved from json-schema-to-typescript's folder, as its own `require` resolves them.
  const from = nodeModule.createRequire(require.resolve("json-schema-to-typescript"));
  const placed: [string, nodeModule.Module][] = [];
  const standIn = (specifier: string, exports: (resolved: string) => object) => {
    let resolved: string;
    try {
      resolved = from.resolve(specifier);
    } catch {
      return;
    }
    if (require.cache[resolved]) return;
    const module = new nodeModule.Module(resolved);
    module.filename = resolved;
    module.loaded = true;
    module.exports = exports(resolved);
    require.cache[resolved] = module;
    placed.push([resolved, module]);
  };
  /** The module at `resolved`, loaded when `member` (by default: any member read) first asks for it. */
  const loadedOnUse = (resolved: string, member = (key: PropertyKey, real: () => Record<PropertyKey, unknown>) => real()[key]) => {
    let real: Record<PropertyKey, unknown> | undefined;
    const load = () => (real ??= require(resolved) as Record<PropertyKey, unknown>);
    return new Proxy({}, { get: (_, key) => member(key, load) });
  };
  standIn("prettier", () => ({}));
  // json-schema-to-typescript reads `$RefParser` off the module when it dereferences, not before.
  standIn("@apidevtools/json-schema-ref-parser", (resolved) => loadedOnUse(resolved));
  standIn("js-yaml", (resolved) => loadedOnUse(resolved, yamlStandIn));
  try {
    return load();
  } finally {
    for (const [resolved, module] of placed) if (require.cache[resolved] === module) delete require.cache[resolved];
  }
}

/**
 * A member of the js-yaml stand-in (see `withStandIns`): what json-schema-to-typescript reads while it loads
 * (`CORE_SCHEMA.withTags` and the tags it passes, none of them used), else the real module's. The bundle's
 * stand-in answers the same (scripts/bundle.mjs).
 */
function yamlStandIn(key: PropertyKey, real: () => Record<PropertyKey, unknown>): unknown {
  if (key === "CORE_SCHEMA") return { withTags: () => undefined };
  if (typeof key === "string" && key.endsWith("Tag")) return undefined;
  return real()[key];
}
