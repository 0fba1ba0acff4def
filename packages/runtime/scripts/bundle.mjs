/**
 * Runs after `tsc`, which writes only the declarations (npm run build). Writes the runtime's JavaScript:
 * - the entry points of the package (index, main, regexp, state/redis, and uri-match, which a test loads on
 *   its own) bundled with code splitting: a stdio server starts by loading a handful of files instead of
 *   thirty modules, what only HTTP, resources or Redis need stays in chunks loaded on first use, and every
 *   class (ToolError, …) exists once whichever entry point imports it;
 * - dist/validators.js: ajv's runtime helpers, ajv-formats' formats and the pattern engine, which every
 *   generated validator imports, in one module, with the licenses of what it took in beside it. A generated
 *   server then installs @mcpgen/runtime alone instead of ajv, ajv-formats and their four dependencies,
 *   which only the compiler needs.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";

const dist = new URL("../dist/", import.meta.url).pathname;
const src = new URL("../src/", import.meta.url).pathname;

// What an earlier build wrote (tsc once wrote every module as JavaScript).
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  if (entry.isFile() && /\.js(\.map)?$/.test(entry.name)) rmSync(path.join(entry.parentPath ?? entry.path, entry.name));
}

await build({
  entryPoints: ["index.ts", "main.ts", "regexp.ts", "state/redis.ts", "uri-match.ts"].map((file) => path.join(src, file)),
  outdir: dist,
  outbase: src,
  bundle: true,
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  // re2js is the runtime's dependency; @redis/client an optional peer, imported by a computed name anyway.
  external: ["re2js", "@redis/client"],
  format: "esm",
  platform: "node",
  target: "es2022",
  sourcemap: true,
  logLevel: "warning",
});

const { metafile } = await build({
  entryPoints: [new URL("../src/validators.ts", import.meta.url).pathname],
  outfile: path.join(dist, "validators.js"),
  bundle: true,
  // The pattern engine's re2js stays a dependency of the runtime: resource templates use it too.
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
  `dist/validators.js bundles these packages:\n\n${notices.join("\n----------------------------------------\n\n")}`,
);
