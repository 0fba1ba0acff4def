/**
 * What the last build left. After writing, a build leaves a stamp in the cache folder: a digest of its
 * input (every schema file, the folders, mcpgen's own code and its generators' versions), the size, mtime
 * and key (what emit made it from) of every file it left in the output folder, and the handler files it
 * expects. A later build with the same input whose output folder and handler files are still exactly
 * that returns at once: no schema is checked or compiled and nothing is written (the no-op short cut).
 * Anything else — an edited schema, a touched or extra generated file, a deleted handler — is a build,
 * which keeps, without rendering or reading them, the output files whose key is unchanged and that were
 * not touched since (with the same mcpgen). `--check` and `--no-cache` never use the stamp.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { compilerFingerprint, readIfExists } from "./cache.js";
import type { BuildConfig } from "./config.js";
import type { Diagnostic } from "./diagnostics.js";
import type { Emitted } from "./emit/index.js";

const require = createRequire(import.meta.url);

export interface Stamp {
  input: string;
  /** mcpgen's own code: the output files' keys hold for this code only. */
  code: string;
  /** What `build()` reports as its counts. */
  counts: { tools: number; resources: number; prompts: number };
  /** Output files relative to the output folder, with their size, mtime and key ("" for none). */
  outputs: [file: string, size: number, mtimeMs: number, key: string][];
  /** Absolute paths of the handler files the server imports. */
  handlers: string[];
  /** The warnings about the input, reported again by a build that finds nothing to do. */
  warnings?: Diagnostic[];
}

/**
 * Code whose change could change the output: what the compile cache's fingerprint covers (mcpgen's version,
 * ajv, json-schema-to-typescript), and the rest of the compiler, the templates and the other generators.
 */
let code: string | undefined;
export function codeDigest(): string {
  if (code) return code;
  const hash = createHash("sha256").update(compilerFingerprint());
  hash.update(builtFilesDigest() ?? compilerFilesDigest());
  for (const pkg of ["handlebars", "yaml", "@hyperjump/uri-template"])
    hash.update(readFileSync(require.resolve(`${pkg}/package.json`)));
  return (code = hash.digest("hex"));
}

/**
 * The digest of the compiler's modules (the folder this module is in: dist/compiler/ when built, with the
 * precompiled templates and meta-validators) and of the templates: their code, not the declarations and
 * source maps tsc writes beside it.
 */
export function compilerFilesDigest(): string {
  const hash = createHash("sha256");
  for (const dir of [path.dirname(fileURLToPath(import.meta.url)), fileURLToPath(new URL("../../templates", import.meta.url))]) {
    for (const file of filesBelow(dir)) if (!/\.(d\.ts|map)$/.test(file)) hash.update(`${file}\0`).update(readFileSync(path.join(dir, file)));
  }
  return hash.digest("hex");
}

/**
 * `compilerFilesDigest()` as scripts/bundle.mjs wrote it beside the bundle (dist/bundle/), once `npm run build`
 * had made every file it covers (walking and hashing them cost ~6 ms a build). Running from source there is
 * none beside this module, as for the bundle's code.sha256 (cache.ts).
 */
function builtFilesDigest(): string | undefined {
  return readIfExists(new URL("../bundle/compiler.sha256", import.meta.url))?.toString("utf8").trim();
}

/** The digest of a build's whole input. */
export function inputDigest(schemas: string, config: BuildConfig): string {
  return createHash("sha256")
    .update(JSON.stringify([schemas, config.schemasDir, config.outDir, config.handlersDir, config.client, codeDigest()]))
    .digest("hex");
}

const stampFile = (config: BuildConfig) =>
  path.join(config.cacheDir!, `stamp-${createHash("sha256").update(config.outDir).digest("hex").slice(0, 16)}.json`);

export interface LastBuild {
  /** The last build's stamp, when its input was this one and its output and handlers are untouched. */
  upToDate: Stamp | undefined;
  /** Keys of the output files untouched since the last build, by path (empty under another mcpgen). */
  untouched: Map<string, string>;
  /** Size and mtime of the output files as this build found them. */
  found: Map<string, [size: number, mtimeMs: number]>;
}

/** What the last build into this output folder left, as far as it still holds. */
export function lastBuild(config: BuildConfig, input: string): LastBuild {
  const none: LastBuild = { upToDate: undefined, untouched: new Map(), found: new Map() };
  if (!config.cacheDir || config.check) return none;
  let stamp: Stamp;
  let onDisk: Map<string, [size: number, mtimeMs: number]>;
  try {
    stamp = JSON.parse(readFileSync(stampFile(config), "utf8")) as Stamp;
    if (stamp.code !== codeDigest()) return none;
    onDisk = new Map(outputsOf(config.outDir).map(([file, size, mtimeMs]) => [file, [size, mtimeMs]]));
  } catch {
    return none;
  }
  const untouched = new Map<string, string>();
  for (const [file, size, mtimeMs, key] of stamp.outputs) {
    const now = onDisk.get(file);
    if (now && now[0] === size && now[1] === mtimeMs) untouched.set(file, key);
  }
  const same = stamp.input === input && untouched.size === stamp.outputs.length && onDisk.size === untouched.size;
  return { upToDate: same && stamp.handlers.every((file) => existsSync(file)) ? stamp : undefined, untouched, found: onDisk };
}

/**
 * Records a build that wrote `config.outDir`: `emitted` says what is there now (and the keys emit made
 * the files from). Files kept untouched are as `found` before the build (write hard-links or leaves them),
 * so only the others are looked at again.
 */
export function saveStamp(
  config: BuildConfig,
  stamp: Omit<Stamp, "code" | "outputs">,
  emitted: Pick<Emitted, "files" | "untouched" | "keys">,
  found: LastBuild["found"] = new Map(),
): void {
  if (!config.cacheDir || config.check) return;
  const file = stampFile(config);
  const temp = `${file}.${process.pid}`;
  try {
    mkdirSync(config.cacheDir, { recursive: true });
    const outputs = [...emitted.files.keys(), ...emitted.untouched].sort().map((f) => {
      const known = emitted.untouched.has(f) ? found.get(f) : undefined;
      const { size, mtimeMs } = known ? { size: known[0], mtimeMs: known[1] } : statSync(path.join(config.outDir, f));
      return [f, size, mtimeMs, emitted.keys.get(f) ?? ""];
    });
    writeFileSync(temp, JSON.stringify({ ...stamp, code: codeDigest(), outputs }));
    renameSync(temp, file);
  } catch {
    rmSync(temp, { force: true }); // only speed is lost
  }
}

function outputsOf(dir: string): [file: string, size: number, mtimeMs: number][] {
  const out: [string, number, number][] = [];
  for (const file of filesBelow(dir)) {
    const stat = statSync(path.join(dir, file));
    out.push([file.split(path.sep).join("/"), stat.size, stat.mtimeMs]);
  }
  return out;
}

/**
 * The files below `dir` (and links to files), by path relative to it, sorted. A walk of its folders: Node
 * 20's `readdirSync(dir, { recursive: true })` took ~25 ms for the 2,000 files of a 1,000-tool output
 * folder, this ~3 ms.
 */
function filesBelow(dir: string): string[] {
  const out: string[] = [];
  const walk = (sub: string) => {
    for (const entry of readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const file = sub ? path.join(sub, entry.name) : entry.name;
      if (entry.isDirectory()) walk(file);
      else if (entry.isFile() || (entry.isSymbolicLink() && statSync(path.join(dir, file), { throwIfNoEntry: false })?.isFile())) out.push(file);
    }
  };
  walk("");
  return out.sort();
}
