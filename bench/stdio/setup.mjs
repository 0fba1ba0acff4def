/**
 * Builds what the stdio benchmark serves, in a temp folder (the repository's own generated/ and build/ are not
 * touched). The folder's node_modules is a link to the repository's, so `@mcpgen/runtime` is this checkout's
 * packages/runtime/dist/ and the SDKs are the installed dev dependencies.
 *   example/    a copy of schemas/ and src/handlers/, built with `mcpgen build` (bin/mcpgen.js) and compiled
 *               with `tsc` (tsconfig.base.json, as tsconfig.example.json does): the repository's example server
 *   tools100/   the seeded 100-tool fixture of bench/lib/fixtures.mjs with every tool listed, built with
 *               `mcpgen build` (handlers: the generated stubs) and transpiled with TypeScript's transpileModule
 *               (types erased, nothing else changes; a full `tsc` of 100 tools would take ~13 s per run)
 *   tools100/tools.json   `{ server, tools }`: the exact `tools/list` entries of that registry, which the SDK
 *               peers turn into zod schemas and the echo peer answers with
 *   tools100/mcpb/  that server packed by `mcpgen bundle` and unpacked: the MCP Bundle form of the same server
 */
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { unzipSync } from "fflate";
import { writeFixture } from "../lib/fixtures.mjs";

const require = createRequire(import.meta.url);

export async function setUp(repo, root, { seed = 1, log }) {
  linkModules(repo, root);
  const example = path.join(root, "example");
  const tools100 = path.join(root, "tools100");
  // Both at once (two cores); wait for both even when one fails, so nothing still writes into `root` after.
  const [exampleBuild, fixtureBuild] = await Promise.allSettled([buildExample(repo, example, log), buildFixture(repo, tools100, seed, log)]);
  for (const outcome of [exampleBuild, fixtureBuild]) if (outcome.status === "rejected") throw outcome.reason;
  return { example: exampleBuild.value, tools100: fixtureBuild.value };
}

/** The example alone (bench/stdio/in-process.mjs): `root/example`, with `root/node_modules` linked as above. */
export async function setUpExample(repo, root, { log }) {
  linkModules(repo, root);
  return buildExample(repo, path.join(root, "example"), log);
}

/** The 100-tool fixture alone (bench/instructions.mjs's cold start): `root/tools100`, with `root/node_modules` linked as above. */
export async function setUpFixture(repo, root, { seed = 1, log }) {
  linkModules(repo, root);
  return buildFixture(repo, path.join(root, "tools100"), seed, log);
}

/** `root/node_modules` as a link to the repository's, so that `@mcpgen/runtime` is this checkout's. */
function linkModules(repo, root) {
  symlinkSync(path.join(repo, "node_modules"), path.join(root, "node_modules"), "dir");
}

async function buildExample(repo, dir, log) {
  mkdirSync(path.join(dir, "src"), { recursive: true });
  cpSync(path.join(repo, "schemas"), path.join(dir, "schemas"), { recursive: true });
  cpSync(path.join(repo, "src", "handlers"), path.join(dir, "src", "handlers"), { recursive: true });
  project(repo, dir, "bench-example");
  log("example: mcpgen build");
  await run(process.execPath, [path.join(repo, "bin", "mcpgen.js"), "build", "schemas", "--out", "generated", "--handlers", "src/handlers", "--no-cache", "--quiet"], dir);
  log("example: tsc");
  await run(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.json"], dir);
  return { entry: path.join(dir, "build", "generated", "server.gen.js") };
}

async function buildFixture(repo, dir, seed, log) {
  mkdirSync(dir, { recursive: true });
  const fixture = writeFixture(dir, 100, seed, "heavy");
  // The fixture hides one tool in 97; here all 100 are listed, so that every peer lists the same 100 tools.
  for (const file of readdirSync(path.join(dir, "schemas", "tools"))) {
    const full = path.join(dir, "schemas", "tools", file);
    const tool = JSON.parse(readFileSync(full, "utf8"));
    if (tool.hidden) {
      delete tool.hidden;
      writeFileSync(full, JSON.stringify(tool, null, 2) + "\n");
    }
  }
  project(repo, dir, "bench-tools100");
  log("100 tools: mcpgen build");
  await run(process.execPath, [path.join(repo, "bin", "mcpgen.js"), "build", "schemas", "--out", "generated", "--handlers", "src/handlers", "--no-cache", "--quiet"], dir);
  log("100 tools: transpile");
  transpileTree(dir, "generated");
  transpileTree(dir, path.join("src", "handlers"));
  const { registry } = await import(pathToFileURL(path.join(dir, "build", "generated", "registry.gen.js")).href);
  // A generated registry holds each tool's metadata as its JSON text.
  const tools = registry.tools.filter((tool) => !tool.hidden).map((tool) => (typeof tool.wire === "string" ? JSON.parse(tool.wire) : tool.wire));
  if (tools.length !== 100) throw new Error(`the 100-tool fixture lists ${tools.length} tools`);
  const toolsJson = path.join(dir, "tools.json");
  writeFileSync(toolsJson, JSON.stringify({ server: registry.server, tools }));
  log("100 tools: mcpgen bundle");
  // An MCP Bundle names its version and author, which the fixture's package.json has no need of.
  writeFileSync(path.join(dir, "bundle-package.json"), JSON.stringify({ name: "bench-tools100", version: "1.0.0", author: "mcpgen bench", description: "The 100-tool fixture" }));
  const mcpbArgs = ["bundle", "schemas", "--entry", "build/generated/server.gen.js", "--package", "bundle-package.json", "--out", "tools100.mcpb", "--quiet"];
  await run(process.execPath, [path.join(repo, "bin", "mcpgen.js"), ...mcpbArgs], dir);
  for (const [name, bytes] of Object.entries(unzipSync(readFileSync(path.join(dir, "tools100.mcpb"))))) {
    mkdirSync(path.dirname(path.join(dir, "mcpb", name)), { recursive: true });
    writeFileSync(path.join(dir, "mcpb", name), bytes);
  }
  return {
    entry: path.join(dir, "build", "generated", "server.gen.js"),
    mcpbEntry: path.join(dir, "mcpb", "server", "index.mjs"),
    toolsJson,
    tools: tools.length,
    listBytes: Buffer.byteLength(registry.toolsListJson ?? JSON.stringify(tools)),
    fixture: { seed, withOutputSchema: fixture.withOutputSchema, perTool: fixture.perTool },
  };
}

/** package.json (ESM) and a tsconfig like tsconfig.example.json, emitting into build/. */
function project(repo, dir, name) {
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, private: true, type: "module" }) + "\n");
  const tsconfig = {
    extends: path.join(repo, "tsconfig.base.json"),
    compilerOptions: { rootDir: ".", outDir: "build", allowJs: true },
    include: ["generated", "src/handlers"],
  };
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2) + "\n");
}

let typescript;
/** `<dir>/<sub>/**` → `<dir>/build/<sub>/**`: .ts transpiled to .js, .js copied, declarations skipped. */
function transpileTree(dir, sub) {
  typescript ??= require("typescript");
  const { ModuleKind, ScriptTarget } = typescript;
  for (const entry of readdirSync(path.join(dir, sub), { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const from = path.join(entry.parentPath ?? entry.path, entry.name);
    const rel = path.relative(dir, from);
    const to = path.join(dir, "build", rel);
    mkdirSync(path.dirname(to), { recursive: true });
    if (rel.endsWith(".d.ts")) continue;
    if (rel.endsWith(".ts")) {
      const { outputText } = typescript.transpileModule(readFileSync(from, "utf8"), {
        fileName: rel,
        compilerOptions: { module: ModuleKind.ESNext, target: ScriptTarget.ES2022, verbatimModuleSyntax: true },
      });
      writeFileSync(to.replace(/\.ts$/, ".js"), outputText);
    } else if (rel.endsWith(".js")) {
      cpSync(from, to);
    }
  }
}

function run(command, args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(args[0])} ${args.slice(1).join(" ")} failed in ${cwd} (exit ${code}):\n${output.slice(-4000)}`))));
  });
}
