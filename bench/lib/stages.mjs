/**
 * Where the time of one cold build goes, by calling the compiler's stages from dist/compiler directly
 * (spawned by bench/build.mjs --profile). argv: <mode> <project dir> [cache]. Modes:
 *   pipeline    import each stage module, then load → check → normalize → toIR → emit → write, each timed;
 *               with `cache`, the cache is on (for a no-op rebuild), otherwise off
 *   rebuild     what `build()` does with the cache on, step by step and each step timed: load, the stamp,
 *               check (with its memo), normalize, toIR, emit (keeping untouched files), the cache, write and
 *               the new stamp (for a rebuild after an edit)
 *   emit-parts  load..toIR untimed, then emit taken apart: every tool's validators (compileModule), of those
 *               the cost of getting an emptied Ajv instance alone, the types (emitTypeUnit), and emit() again
 *               with everything served from an in-memory cache (= rendering, hashing and cache reads)
 * Prints one JSON line.
 */
import path from "node:path";

const [mode, cwd, cacheFlag] = process.argv.slice(2);
const dist = new URL("../../dist/compiler/", import.meta.url);
const mod = (file) => import(new URL(file, dist).href);
const steps = [];
const time = async (label, fn) => {
  const t0 = performance.now();
  const value = await fn();
  steps.push([label, performance.now() - t0]);
  return value;
};
/** Stops at errors; warnings (notes such as a recursive `$ref`) do not stop a build either. */
const gate = (label, result) => {
  const errors = (result.diagnostics ?? []).filter((d) => d.severity !== "warning");
  if (errors.length) throw new Error(`${label}: ${errors.length} errors, first: ${JSON.stringify(errors[0])}`);
  return result;
};

const imports = {};
for (const [name, file] of [
  ["config", "config.js"],
  ["cache", "cache.js"],
  ["load", "load.js"],
  ["check", "check.js"],
  ["normalize", "normalize.js"],
  ["ir", "ir.js"],
  ["emit", "emit/index.js"],
  ["validators", "emit/validators.js"],
  ["types", "emit/types.js"],
  ["ajv", "ajv.js"],
  ["write", "write.js"],
  ["stamp", "stamp.js"],
  ["index", "index.js"],
])
  imports[name] = mode !== "emit-parts" ? await time(`import ${file}`, () => mod(file)) : await mod(file);

const { resolveConfig } = imports.config;
const config = resolveConfig({ cwd, cache: cacheFlag === "cache" });
const version = imports.index.VERSION;
const front = async (timed) => {
  const t = timed ? time : (_label, fn) => fn();
  const { sources } = gate("load", await t("load", () => imports.load.load(config.schemasDir, config.cwd)));
  const { checked } = gate("check", await t("check", () => imports.check.check(sources)));
  const { normalized } = gate("normalize", await t("normalize", () => imports.normalize.normalize(checked)));
  return t("toIR", () => imports.ir.toIR(checked, normalized));
};

if (mode === "pipeline") {
  const ir = await front(true);
  const emitted = gate("emit", await time("emit", () => imports.emit.emit(ir, config, imports.cache.openCache(config.cacheDir), version)));
  const written = await time("write", () => imports.write.write(emitted, config));
  report({ tools: ir.tools.length, typeUnits: ir.typeUnits.length, updated: written.updated.length, cache: config.cacheDir !== undefined });
} else if (mode === "rebuild") {
  const { load, check, normalize, ir: irs, emit, cache: caches, write, stamp } = imports;
  const { sources } = gate("load", await time("load", () => load.load(config.schemasDir, config.cwd)));
  const input = await time("stamp: input digest", () => stamp.inputDigest(sources.digest, config));
  const last = await time("stamp: last build", () => stamp.lastBuild(config, input));
  const cache = await time("cache: open", () => caches.openCache(config.cacheDir));
  const checkedKey = (doc) => caches.cacheKey("checked", stamp.codeDigest(), doc.rel, doc.digest);
  const memo = { passed: (doc) => cache.get(checkedKey(doc)) !== undefined, pass: (doc) => cache.set(checkedKey(doc), "") };
  const { checked } = gate("check", await time("check", () => check.check(sources, memo)));
  const { normalized } = gate("normalize", await time("normalize", () => normalize.normalize(checked)));
  const ir = await time("toIR", () => irs.toIR(checked, normalized));
  const emitted = gate("emit", await time("emit", () => emit.emit(ir, config, cache, version, last.untouched)));
  await time("cache: save", () => cache.save());
  const written = await time("write", () => write.write(emitted, config));
  await time("stamp: save", () => stamp.saveStamp(config, { input, counts: {}, handlers: [...emitted.stubs.keys()], warnings: [] }, emitted, last.found));
  report({ tools: ir.tools.length, typeUnits: ir.typeUnits.length, updated: written.updated.length, untouched: emitted.untouched.size });
} else if (mode === "emit-parts") {
  const ir = await front(false);
  const memory = new Map();
  const cache = { get: (k) => memory.get(k), set: (k, v) => void memory.set(k, v), keep: () => {} };
  await time("validators: compileModule for every tool", () => {
    for (const tool of ir.tools) gate(tool.name, imports.validators.compileModule(imports.validators.toolRequest(tool).request, cache));
  });
  await time("  of which: an emptied Ajv instance per tool", () => {
    for (const tool of ir.tools) imports.ajv.createAjv(tool.dialect, { standalone: true });
  });
  await time("types: emitTypeUnit for every unit (json-schema-to-typescript)", () => Promise.all(ir.typeUnits.map((unit) => imports.types.emitTypeUnit(unit, cache))));
  await time("rest of emit: render + hash + cache reads (all cache hits)", () => imports.emit.emit(ir, config, cache, version));
  report({ tools: ir.tools.length, typeUnits: ir.typeUnits.length });
} else {
  throw new Error(`unknown mode ${mode}`);
}

function report(fields) {
  process.stdout.write(JSON.stringify({ ...fields, steps, maxRSSKiB: process.resourceUsage().maxRSS, out: path.relative(cwd, config.outDir) }) + "\n");
}
