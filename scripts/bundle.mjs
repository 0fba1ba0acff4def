/**
 * Runs last in `npm run build`: bundles the CLI (`bin/mcpgen.js`) and the compiler's library entry (`mcpgen`,
 * `build()`) with esbuild from the modules tsc wrote into dist/, into dist/bundle/. Loading the compiler and
 * its dependencies module by module (ajv's ~120 CommonJS files, json-schema-to-typescript's, commander's, ...)
 * was ~110–140 ms of every build; from a few files it is less (BENCHMARKS.md, "Build speed").
 *
 * - Code splitting: what the compiler loads only when there is work (check, normalize, emit, json-schema-to-
 *   typescript, yaml, every command's own modules) stays a file of its own, loaded as late as before. Both
 *   entries share the chunks.
 * - Inlined are the dependencies `mcpgen build` and `mcpgen dev` load (INLINE, and what they import); every
 *   other package stays where npm put it and loads from there as before: the runtime (a peer: the pattern
 *   engine the build checks with is the one the server runs), esbuild, and what only other commands use.
 * - Each module keeps its own `import.meta.url`, the URL of the file it was bundled from, so whatever the
 *   compiler finds beside its modules (templates.js, meta/, package.json, templates/, the worker modules,
 *   the files the code digest hashes) it finds in dist/ exactly as before. dist/ ships whole (`files`).
 * - dist/bundle/code.sha256, the digest of the bundle's code, goes into the compile cache's fingerprint;
 *   dist/bundle/compiler.sha256, the digest of dist/compiler/ and the templates, into the code digest (stamp.ts).
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(fileURLToPath(import.meta.url), "../..");
const dist = path.join(root, "dist");
const outdir = path.join(dist, "bundle");
const jsttDir = path.dirname(createRequire(import.meta.url).resolve("json-schema-to-typescript"));

/** The packages inlined, with everything they import (but the stand-ins below). */
const INLINE = new Set(["commander", "ajv", "ajv-formats", "handlebars", "yaml", "@hyperjump/uri-template", "json-schema-to-typescript", "chokidar"]);

/**
 * A stand-in for `specifier` that loads the real module (from node_modules, or Node's own) at the first
 * member read. `answering`, the start of a conditional expression of `key` (`<test> ? <value> : `), answers
 * some members without loading it.
 */
const loadedOnUse = (specifier, answering = "") =>
  [
    "let real;",
    `const load = () => (real ??= require(${JSON.stringify(specifier)}));`,
    `module.exports = new Proxy({}, { get: (_, key) => ${answering}load()[key] });`,
  ].join("\n");

/**
 * What json-schema-to-typescript requires but mcpgen's calls never reach: the stand-ins that emit/jstt.cts
 * puts in Node's module cache when the compiler runs from dist/ (see there why), here made when bundling.
 * Imported from anywhere else, these packages load from node_modules.
 */
const STAND_INS = {
  prettier: "module.exports = {};",
  // json-schema-to-typescript reads `$RefParser` off it when it dereferences, not before.
  "@apidevtools/json-schema-ref-parser": loadedOnUse("@apidevtools/json-schema-ref-parser"),
  // What json-schema-to-typescript reads while it loads (to make the schema it reads `.yaml` files with) is
  // answered, none of it used (yamlStandIn in emit/jstt.cts).
  "js-yaml": loadedOnUse("js-yaml", 'key === "CORE_SCHEMA" ? { withTags: () => undefined } : typeof key === "string" && key.endsWith("Tag") ? undefined : '),
};

/**
 * lodash for json-schema-to-typescript: each function it calls, from lodash's module of that function, rather
 * than lodash.js, one 540 KB function that V8 parses whole when it runs it (loading json-schema-to-typescript
 * from the bundle: 24–27 ms with lodash.js, ~19 ms so). The names are read from its modules, where every use
 * of lodash is `lodash_1.<name>` after one `const lodash_1 = require("lodash")`; if that stops being so,
 * `undefined`, and lodash.js is inlined as it is.
 */
function lodashFunctions() {
  const names = new Set();
  for (const file of readdirSync(jsttDir).filter((f) => f.endsWith(".js"))) {
    const text = readFileSync(path.join(jsttDir, file), "utf8");
    const uses = text.match(/\blodash_1\b/g)?.length ?? 0;
    if (!uses) continue;
    const declared = text.match(/\bconst lodash_1 = require\("lodash"\);/g)?.length ?? 0;
    const called = [...text.matchAll(/\blodash_1\.([A-Za-z_$][\w$]*)/g)].map((m) => m[1]);
    if (declared !== 1 || called.length !== uses - 1) return undefined;
    for (const name of called) names.add(name);
  }
  return [...names].sort();
}

const packageOf = (specifier) => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/");
const inNodeModules = (file) => file.split(path.sep).includes("node_modules");
const fromJstt = (file) => file.startsWith(jsttDir + path.sep);

/** Which packages are inlined, and the modules made here (stand-ins, lodash's functions). */
const packages = {
  name: "mcpgen-packages",
  setup(b) {
    const lodash = lodashFunctions();
    b.onResolve({ filter: /^[^./]/ }, ({ path: specifier, importer, namespace }) => {
      // commander requires child_process when it loads, for subcommands that are programs of their own, which
      // mcpgen has none of: it is loaded on first use instead (~2.4 ms of every mcpgen command).
      if (specifier === "node:child_process" && namespace === "file" && importer.includes(`${path.sep}node_modules${path.sep}commander${path.sep}`)) {
        return { path: specifier, namespace: "mcpgen-lazy-builtin" };
      }
      if (specifier.startsWith("node:")) return undefined;
      const name = packageOf(specifier);
      const jstt = namespace === "file" && fromJstt(importer);
      if (Object.hasOwn(STAND_INS, name)) return jstt ? { path: name, namespace: "mcpgen-stand-in" } : { path: specifier, external: true };
      if (specifier === "lodash" && jstt && lodash) return { path: "lodash", namespace: "mcpgen-lodash" };
      // A package the compiler imports is inlined if listed; one an inlined package imports, always.
      if (INLINE.has(name) || inNodeModules(importer) || namespace === "mcpgen-lodash") return undefined;
      return { path: specifier, external: true };
    });
    b.onLoad({ filter: /.*/, namespace: "mcpgen-stand-in" }, ({ path: name }) => ({ contents: STAND_INS[name], loader: "js" }));
    b.onLoad({ filter: /.*/, namespace: "mcpgen-lazy-builtin" }, ({ path: name }) => ({
      contents: loadedOnUse(name),
      loader: "js",
    }));
    b.onLoad({ filter: /.*/, namespace: "mcpgen-lodash" }, () => ({
      contents: `module.exports = {\n${lodash.map((name) => `  ${name}: require("lodash/${name}.js"),`).join("\n")}\n};\n`,
      resolveDir: jsttDir,
      loader: "js",
    }));
  },
};

/**
 * `import.meta.url` of each module: the URL of the file it was bundled from, computed from the URL of the
 * bundle file it is in (all of them are in dist/bundle/). `define` replaces each `import.meta.url`
 * expression (never text in a string) with the module's own constant, which esbuild renames per module.
 * One module is left as it is: emit/threads.js finds the compile threads' modules beside the file it runs
 * from, which in the bundle are the bundled ones (ENTRIES).
 */
const MODULE_URL = "__mcpgenModuleUrl";
const BUNDLE_URL = "__mcpgenBundleUrl";
const RUN_FROM_BUNDLE = new Set([path.join(dist, "compiler/emit/threads.js")]);
const ownUrl = {
  name: "mcpgen-own-url",
  setup(b) {
    b.onLoad({ filter: /\.[cm]?js$/ }, async ({ path: file }) => {
      const text = await readFile(file, "utf8");
      if (!text.includes("import.meta")) return undefined;
      const rel = path.relative(outdir, file).split(path.sep).join("/");
      const url = RUN_FROM_BUNDLE.has(file) ? BUNDLE_URL : `new URL(${JSON.stringify(rel)}, ${BUNDLE_URL}).href`;
      return { contents: `const ${MODULE_URL} = ${url};\n${text}`, loader: "js" };
    });
  },
};

/** The CLI, the `mcpgen` entry, and the modules of compile threads (emit/parallel.ts starts them). */
const ENTRIES = {
  cli: "cli/main.js",
  index: "compiler/index.js",
  worker: "compiler/emit/worker.js",
  "types-worker": "compiler/emit/types-worker.js",
};

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, path.join(dist, file)])),
  outdir,
  // One folder: the relative URLs above hold from every file.
  entryNames: "[name]",
  chunkNames: "[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  plugins: [packages, ownUrl],
  define: { "import.meta.url": MODULE_URL },
  banner: {
    // CommonJS code inlined in an ES module calls `require` for Node's own modules and the packages left out.
    js: [
      'import { createRequire as __mcpgenCreateRequire } from "node:module";',
      "const require = __mcpgenCreateRequire(import.meta.url);",
      `const ${BUNDLE_URL} = import.meta.url;`,
    ].join("\n"),
  },
  sourcemap: "linked",
  legalComments: "linked",
  logLevel: "warning",
  metafile: true,
});

// The packages the bundle took in (the folder under the last node_modules/ of an input), with their licenses:
// the package ships their code.
const bundled = new Map();
for (const input of Object.keys(result.metafile.inputs)) {
  const match = /^(.*node_modules\/)((?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (match) bundled.set(match[2], path.resolve(root, match[1] + match[2]));
}
const notices = [...bundled].sort(([a], [b]) => a.localeCompare(b)).map(([name, dir]) => {
  const { version, license } = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
  const file = readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
  return `${name}@${version} (${license})\n\n${file ? readFileSync(path.join(dir, file), "utf8").trim() : "(no license file)"}\n`;
});
writeFileSync(path.join(outdir, "licenses.txt"), `dist/bundle/ bundles these packages:\n\n${notices.join("\n----------------------------------------\n\n")}`);

// The digest of the bundle's code, which the compile cache's fingerprint reads (cache.ts) rather than hash
// the files itself in every build.
const code = createHash("sha256");
const scripts = readdirSync(outdir).filter((f) => f.endsWith(".js")).sort();
for (const file of scripts) code.update(`${file}\0`).update(readFileSync(path.join(outdir, file)));
writeFileSync(path.join(outdir, "code.sha256"), `${code.digest("hex")}\n`);
// The digest of the compiler's own files and the templates, which the code digest of a build's stamp and
// memos reads (stamp.ts) rather than walk and hash them in every build: dist/compiler/ is complete by now.
const { compilerFilesDigest } = await import("../dist/compiler/stamp.js");
writeFileSync(path.join(outdir, "compiler.sha256"), `${compilerFilesDigest()}\n`);

const bytes = scripts.reduce((sum, file) => sum + result.metafile.outputs[path.relative(root, path.join(outdir, file))].bytes, 0);
process.stdout.write(`bundle: ${scripts.length} files, ${(bytes / 1e6).toFixed(2)} MB of code in ${path.relative(root, outdir)}/\n`);
