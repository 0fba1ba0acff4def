#!/usr/bin/env node
/**
 * Validator cost of the pattern engine: the seeded 100-tool `heavy` fixture (as `npm run bench`'s 100-tool
 * servers), built with mcpgen; every tool's input validator checks its examples' inputs, once with the
 * generated validators as they are (patterns on the linear-time engine, `mcpgen/runtime/regexp`) and once
 * with the engine swapped for a native `RegExp` (what ajv generates by default), rounds alternating.
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
  const native = path.join(dir, "native");
  cpSync(generated, native, { recursive: true });
  writeFileSync(path.join(native, "native-regexp.js"), "export default (pattern, flags) => new RegExp(pattern, flags);\n");
  const tools = readdirSync(path.join(dir, "schemas/tools")).map((f) => f.replace(/\.json$/, "")).sort();
  for (const tool of tools) {
    const file = path.join(native, `${tool}.gen.js`);
    writeFileSync(file, readFileSync(file, "utf8").replace('from "@mcpgen/runtime/regexp"', 'from "./native-regexp.js"'));
  }
  const load = async (folder) => {
    const cases = [];
    for (const tool of tools) {
      const { input } = await import(pathToFileURL(path.join(folder, `${tool}.gen.js`)).href);
      const spec = JSON.parse(readFileSync(path.join(dir, "schemas/tools", `${tool}.json`), "utf8"));
      for (const example of spec.examples ?? []) cases.push({ tool, validate: input, value: example.input });
    }
    return cases;
  };
  const engines = { re2js: await load(generated), native: await load(native) };
  const usesPattern = (tool) => readFileSync(path.join(generated, `${tool}.gen.js`), "utf8").includes("@mcpgen/runtime/regexp");
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
    const results = { native: [], re2js: [] };
    for (let r = 0; r < rounds; r++)
      for (const name of r % 2 ? ["re2js", "native"] : ["native", "re2js"]) results[name].push(time(pick(engines[name])));
    console.log(`${label} (${n} example inputs): native RegExp ${median(results.native).toFixed(0)} ns, re2js ${median(results.re2js).toFixed(0)} ns per validation`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
