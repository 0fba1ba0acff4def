#!/usr/bin/env node
/**
 * Validator cost of the pattern engine: the seeded 100-tool `heavy` fixture (as `npm run bench`'s 100-tool
 * servers), built with mcpgen; every tool's input validator checks its examples' inputs with three engines,
 * rounds alternating: the generated validators as they are (`mcpgen`: V8's `RegExp` for patterns whose shape
 * keeps backtracking linear, RE2 for the rest), with every pattern on RE2 (`re2js`), and with every pattern
 * on a native `RegExp` (`native`, what ajv generates by default).
 * Prints ns per validation for all tools, the tools with a pattern, and the `search_*` tools (medians over
 * rounds).
 *
 *   node bench/validators.mjs [--rounds N]      (npm run build first)
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "../dist/compiler/index.js";
import { writeFixture } from "./lib/fixtures.mjs";

const ROOT = path.resolve(import.meta.dirname, "..");
const rounds = Number(process.argv[process.argv.indexOf("--rounds") + 1]) || 5;
mkdirSync(path.join(ROOT, ".tmp"), { recursive: true });
const dir = mkdtempSync(path.join(ROOT, ".tmp", "bench-validators-"));
try {
  writeFixture(dir, 100, 1, "heavy");
  await build({ cwd: dir, cache: false, quiet: true });
  const generated = path.join(dir, "generated/validators");
  // The generated modules take `regExp` from @mcpgen/runtime/validators (V8's) or @mcpgen/runtime/regexp (with
  // RE2, where a pattern needs it); the copies take it from a file beside them.
  const tools = readdirSync(path.join(dir, "schemas/tools")).map((f) => f.replace(/\.json$/, "")).sort();
  const regexp = pathToFileURL(path.join(ROOT, "packages/runtime/dist/regexp.js")).href;
  const variant = (name, engine) => {
    const folder = path.join(dir, name);
    cpSync(generated, folder, { recursive: true });
    writeFileSync(path.join(folder, "engine.js"), engine);
    for (const tool of tools) {
      const file = path.join(folder, `${tool}.gen.js`);
      writeFileSync(file, readFileSync(file, "utf8").replace(/import \{ regExp as (\w+) \} from "@mcpgen\/runtime\/(?:validators|regexp)"/, 'import $1 from "./engine.js"'));
    }
    return folder;
  };
  const native = variant("native", "export default (pattern, flags) => new RegExp(pattern, flags);\n");
  const re2 = variant(
    "re2js",
    `import { RE2JS } from "re2js";\nimport { translate } from ${JSON.stringify(regexp)};\n` +
      "export default (pattern) => { const compiled = RE2JS.compile(translate(pattern)); return { test: (s) => compiled.test(s), toString: () => `/${pattern}/u` }; };\n",
  );
  const load = async (folder) => {
    const cases = [];
    for (const tool of tools) {
      const { input } = await import(pathToFileURL(path.join(folder, `${tool}.gen.js`)).href);
      const spec = JSON.parse(readFileSync(path.join(dir, "schemas/tools", `${tool}.json`), "utf8"));
      for (const example of spec.examples ?? []) cases.push({ tool, validate: input, value: example.input });
    }
    return cases;
  };
  const engines = { mcpgen: await load(generated), re2js: await load(re2), native: await load(native) };
  const usesPattern = (tool) => /\bregExp as /.test(readFileSync(path.join(generated, `${tool}.gen.js`), "utf8"));
  const time = (cases) => {
    const repeat = Math.ceil(200_000 / cases.length);
    const started = process.hrtime.bigint();
    for (let r = 0; r < repeat; r++) for (const c of cases) if (!c.validate(c.value)) throw new Error(`${c.tool}: example invalid`);
    return Number(process.hrtime.bigint() - started) / (repeat * cases.length);
  };
  const sets = {
    "all tools": (cases) => cases,
    "tools with a pattern": (cases) => cases.filter((c) => usesPattern(c.tool)),
    "search_* tools": (cases) => cases.filter((c) => c.tool.startsWith("search")),
  };
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const [label, pick] of Object.entries(sets)) {
    const n = pick(engines.native).length;
    if (n === 0) continue;
    const results = { mcpgen: [], re2js: [], native: [] };
    const names = Object.keys(results);
    for (let r = 0; r < rounds; r++) for (let k = 0; k < names.length; k++) results[names[(r + k) % names.length]].push(time(pick(engines[names[(r + k) % names.length]])));
    console.log(`${label} (${n} example inputs), ns per validation: mcpgen ${median(results.mcpgen).toFixed(0)}, all on re2js ${median(results.re2js).toFixed(0)}, all native RegExp ${median(results.native).toFixed(0)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
