/**
 * Runs last in `npm run build`: bundles the CLI (`bin/mcpgen.js`) and the compiler's library entry (`mcpgen`,
 * `build()`) with esbuild from the modules tsc wrote into dist/, into dist/bundle/. Loading the compiler and
 * its dependencies module by module (ajv's ~120 CommonJS files, json-schema-to-typescript's, commander's, ...)
 * was ~110–140 ms of every build; from a few files it is less (BENCHMARKS.md, "Build speed").
 *
 * - Code splitting: what the compiler loads only when there is work (check, normalize, emit; yaml; every
 *   command's own modules) stays a separate file, loaded as late as before. Both entries share the chunks.
 * - Inlined are the dependencies `mcpgen build` and `mcpgen dev` load (INLINE, and what they import); every
 *   other package stays where npm put it and loads from there as before: the runtime (a peer: the pattern
 *   engine the build checks with is the one the server runs), esbuild, and what only other commands use.
 * - Each module keeps its own `import.meta.url`, the URL of the file it was bundled from, so whatever the
 *   compiler finds beside its modules (templates.js, meta/, package.json, templates/, the worker modules,
 *   the files the code digest hashes) it finds in dist/ exactly as before. dist/ ships whole (`files`).
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = path.resolve(fileURLToPath(import.meta.url), "../..");
const dist = path.join(root, "dist");
const outdir = path.join(dist, "bundle");

/** The packages inlined, with everything they import but STAND_INS. */
const INLINE = new Set(["commander", "ajv", "ajv-formats", "handlebars", "yaml", "@hyperjump/uri-template", "json-schema-to-typescript", "chokidar"]);
/** Never inlined: json-schema-to-typescript loads them with stand-ins in their place (see emit/jstt.cts). */
const STAND_INS = new Set(["prettier", "@apidevtools/json-schema-ref-parser"]);

const packageOf = (specifier) => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/");
const inNodeModules = (file) => file.split(path.sep).includes("node_modules");

/** Inlines INLINE and their dependencies; leaves every other package to Node's resolution at run time. */
const packages = {
  name: "mcpgen-packages",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, ({ path: specifier, importer }) => {
      if (specifier.startsWith("node:")) return undefined;
      const name = packageOf(specifier);
      if (STAND_INS.has(name)) return { path: specifier, external: true };
      // A package the compiler imports is inlined if listed; one a listed package imports, always.
      if (INLINE.has(name) || inNodeModules(importer)) return undefined;
      return { path: specifier, external: true };
    });
  },
};

/**
 * `import.meta.url` of each module: the URL of the file it was bundled from, computed from the URL of the
 * bundle file it is in (all of them are in dist/bundle/). `define` replaces each `import.meta.url`
 * expression (never text in a string) with the module's own constant, which esbuild renames per module.
 */
const MODULE_URL = "__mcpgenModuleUrl";
const BUNDLE_URL = "__mcpgenBundleUrl";
const ownUrl = {
  name: "mcpgen-own-url",
  setup(b) {
    b.onLoad({ filter: /\.[cm]?js$/ }, async ({ path: file }) => {
      const text = await readFile(file, "utf8");
      if (!text.includes("import.meta")) return undefined;
      const rel = path.relative(outdir, file).split(path.sep).join("/");
      return { contents: `const ${MODULE_URL} = new URL(${JSON.stringify(rel)}, ${BUNDLE_URL}).href;\n${text}`, loader: "js" };
    });
  },
};

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints: { cli: path.join(dist, "cli/main.js"), index: path.join(dist, "compiler/index.js") },
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

// The digest of the bundle's code, which the compile cache's fingerprint reads (cache.ts) rather than hash
// the files itself in every build.
const code = createHash("sha256");
for (const file of readdirSync(outdir).filter((f) => f.endsWith(".js")).sort()) code.update(`${file}\0`).update(readFileSync(path.join(outdir, file)));
writeFileSync(path.join(outdir, "code.sha256"), `${code.digest("hex")}\n`);

const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
const files = Object.keys(result.metafile.outputs).filter((f) => f.endsWith(".js")).length;
process.stdout.write(`bundle: ${files} files, ${(bytes / 1e6).toFixed(2)} MB in ${path.relative(root, outdir)}/ (${pathToFileURL(outdir).href})\n`);
