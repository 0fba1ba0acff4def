/**
 * Runs after `tsc`, which writes only the declarations into a dist/ the build emptied first (npm run build),
 * so that nothing of a module since removed is left to ship. Writes the runtime's JavaScript:
 * - dist/main.js, the entry point of a generated server, as one file holding every module a stdio server
 *   starts with (its static imports): Node loads a module per file, and six files took 2–3 ms longer to load
 *   than one. Its lazy imports (HTTP, resources and prompts, Redis) point at files of the last build.
 *   Besides main(), it exports what those modules export, for the other builds to import;
 * - dist/index.js, the package's entry point, the same way: one file holding the modules index.ts adds to
 *   main.js's (the HTTP options and security checks, the in-memory stores, `structured`). Built with the
 *   others, it imported six chunks it shared with them, each a file Node loads at a cost however small:
 *   3.3–5.4 ms after main.js on the first call of a tool whose handler imports `ToolError`, against ~1.6 ms
 *   as one file;
 * - the other entry points (regexp, redis, uri-match) and the lazily loaded parts, bundled with code
 *   splitting, what two of them share in chunks. Every import of a module that dist/main.js (or
 *   dist/index.js) holds becomes an import of that file by its path from the importing file (`./main.js`,
 *   `../main.js`), so each class (ToolError, AuthError, …) exists once, whichever entry point imports it.
 *   Not by the package's own name (`@mcpgen/runtime/main`): resolving a name through the package's
 *   `exports` runs a regular expression of Node's resolver that V8 compiles on its first two uses in a
 *   process, ~0.6 ms each, so the first lazily loaded part (the tool-call runtime, or HTTP on a server's
 *   start-up) took 0.5–0.8 ms longer to load;
 * - dist/validators.js: ajv's runtime helpers, ajv-formats' formats and V8's engine for backtrack-safe
 *   patterns, which generated validators import, in one module, with the licenses of what it took in beside
 *   it. A generated server then installs @mcpgen/runtime alone instead of ajv, ajv-formats and their four
 *   dependencies, which only the compiler needs. It imports no re2js: a validator with a pattern of another
 *   shape imports dist/regexp.js, the RE2 engine, itself. And dist/validators-uri.js, ajv's URI helper
 *   (fast-uri, two thirds of what the helpers were), for a validator whose code requires it.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";

const dist = new URL("../dist/", import.meta.url).pathname;
const src = new URL("../src/", import.meta.url).pathname;
/** What the later builds first write for an import of dist/main.js, replaced by its path from each file. */
const SELF = "@mcpgen/runtime/main";
/** The same for an import of dist/index.js. */
const INDEX = "@mcpgen/runtime/index.js";
// re2js is the runtime's dependency; @redis/client an optional peer, imported by a computed name anyway.
const external = ["re2js", "@redis/client"];
const common = { bundle: true, format: "esm", platform: "node", target: "es2022", sourcemap: true, logLevel: "warning", external };

/** The output file of a source module of the last build (`src/http/node.ts` → `dist/http/node.js`). */
const output = (file) => path.join(dist, path.relative(src, file)).replace(/\.ts$/, ".js");

/** The modules main.ts imports statically: dist/main.js. */
let startup = new Set();
/** The modules index.ts imports statically besides those: dist/index.js. */
let entry = new Set();
/** The modules either loads lazily, which the last build writes as files of their own. */
const lazy = new Set();
/** Marks the resolution a plugin asks esbuild for, so that the plugin does not answer it itself. */
const INNER = Symbol("inner");
/**
 * Resolves the relative imports of a build that holds the modules of `own`: a module dist/main.js or
 * dist/index.js holds is imported from that file; with `lazyFiles` (a build writing one file into dist/),
 * a module imported dynamically is imported from the file the last build writes for it.
 */
const linking = (own, lazyFiles) => ({
  name: "linking",
  setup(b) {
    b.onResolve({ filter: /^\./ }, async (args) => {
      if (args.pluginData === INNER) return undefined;
      const { path: file } = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: INNER });
      if (own.has(file)) return undefined;
      if (startup.has(file)) return { path: SELF, external: true };
      if (entry.has(file)) return { path: INDEX, external: true };
      if (!lazyFiles || args.kind !== "dynamic-import") return undefined;
      lazy.add(file);
      return { path: `./${path.relative(dist, output(file))}`, external: true };
    });
  },
});
/** The modules `file` imports statically, itself included, that neither main.js nor index.js holds. */
async function staticGraph(file) {
  const probe = await build({ ...common, entryPoints: [file], write: false, outdir: dist, metafile: true, sourcemap: false, plugins: [linking(new Set(), true)] });
  return new Set(Object.keys(probe.metafile.inputs).map((input) => path.resolve(input)));
}
/** A module exporting what each module of `files` exports, for a build holding them all in one file. */
const holding = (files, name) => ({
  contents: [...files].map((file) => `export * from ${JSON.stringify(`./${path.relative(src, file)}`)};`).join("\n"),
  resolveDir: src,
  sourcefile: name,
  loader: "ts",
});
startup = await staticGraph(path.join(src, "main.ts"));
entry = await staticGraph(path.join(src, "index.ts"));
for (const file of entry) lazy.delete(file); // main.ts loads http/options.ts lazily, from index.js

await build({ ...common, stdin: holding(startup, "main-bundle.ts"), outfile: path.join(dist, "main.js"), plugins: [linking(startup, true)] });
// index.ts re-exports modules of main.js with `export *`, which esbuild keeps only at the top level.
await build({ ...common, stdin: holding([path.join(src, "main.ts"), ...entry], "index-bundle.ts"), outfile: path.join(dist, "index.js"), plugins: [linking(entry, true)] });

// The package's other entry points, and what main.js and index.js load lazily (state/redis.ts is both).
const entryPoints = [...new Set([...["regexp.ts", "state/redis.ts", "uri-match.ts"].map((file) => path.join(src, file)), ...lazy])];
await build({ ...common, entryPoints, outdir: dist, outbase: src, splitting: true, chunkNames: "chunks/[name]-[hash]", plugins: [linking(new Set(), false)] });

// `@mcpgen/runtime/main` becomes dist/main.js's path from each file, and the same for dist/index.js (see above).
editModules((text, file) => {
  const from = (target) => {
    const relative = path.relative(path.dirname(file), path.join(dist, target));
    return JSON.stringify(relative.startsWith(".") ? relative : `./${relative}`);
  };
  return text.replaceAll(`"${SELF}"`, from("main.js")).replaceAll(`"${INDEX}"`, from("index.js"));
});

// Every name a module imports from dist/main.js or dist/index.js must be one it exports: loading each entry
// point fails here, not in a user's server, when a name is missing or ambiguous.
execFileSync(process.execPath, ["--input-type=module", "-e", [path.join(src, "index.ts"), ...entryPoints].map((file) => `await import(${JSON.stringify(output(file))});`).join("\n")], {
  stdio: "inherit",
});

const { metafile } = await build({
  entryPoints: ["validators.ts", "validators-uri.ts"].map((file) => path.join(src, file)),
  outdir: dist,
  bundle: true,
  // Should a helper ever need RE2, the runtime's dependency, not a copy of it.
  external: ["re2js"],
  format: "esm",
  platform: "neutral",
  target: "es2022",
  metafile: true,
  logLevel: "warning",
});

// Each bundled package (the folder under the last node_modules/ of an input), with its license text.
const packages = new Map();
for (const input of Object.keys(metafile.inputs)) {
  const match = /^(.*node_modules\/)((?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (match) packages.set(match[2], path.resolve(match[1] + match[2]));
}
const notices = [...packages].sort(([a], [b]) => a.localeCompare(b)).map(([name, dir]) => {
  const { version, license } = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
  const file = readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
  return `${name}@${version} (${license})\n\n${file ? readFileSync(path.join(dir, file), "utf8").trim() : "(no license file)"}\n`;
});
writeFileSync(
  path.join(dist, "validators.licenses.txt"),
  `dist/validators.js and dist/validators-uri.js bundle these packages:\n\n${notices.join("\n----------------------------------------\n\n")}`,
);

// Every module ASCII only: V8 reads a module of ASCII text as one-byte text, and one character beyond ASCII
// makes the whole module two-byte text, slower to decode and to compile (0.2 ms of a stdio server's start-up
// for dist/main.js, BENCHMARKS.md). esbuild writes the characters of literals as escapes already (its ASCII
// charset); what is left is in comments, where an escape reads the same.
editModules((text) => text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));

/** Rewrites each JavaScript module in dist/ to what `edit` makes of its text (when that differs). */
function editModules(edit) {
  for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".js")) continue;
    const file = path.join(entry.parentPath ?? entry.path, entry.name);
    const text = readFileSync(file, "utf8");
    const edited = edit(text, file);
    if (edited !== text) writeFileSync(file, edited);
  }
}
