/**
 * The no-op short cut. After writing, a build leaves a stamp in the cache folder: a digest of its input
 * (every schema file, the folders, mcpgen's own code and its generators' versions), the size and mtime of
 * every file it left in the output folder, and the handler files it expects. A later build with the same
 * input whose output folder and handler files are still exactly that returns at once: no schema is
 * checked or compiled and nothing is written. Anything else — an edited schema, a touched or extra
 * generated file, a deleted handler, another mcpgen — is a full build. `--check` and `--no-cache` never
 * use it.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { compilerFingerprint } from "./cache.js";
import type { BuildConfig } from "./config.js";

const require = createRequire(import.meta.url);

export interface Stamp {
  input: string;
  /** What `build()` reports as its counts. */
  counts: { tools: number; resources: number; prompts: number };
  /** Output files relative to the output folder, with their size and mtime. */
  outputs: [file: string, size: number, mtimeMs: number][];
  /** Absolute paths of the handler files the server imports. */
  handlers: string[];
}

/**
 * Code whose change could change the output: what the compile cache's fingerprint covers (mcpgen's version,
 * ajv, json-schema-to-typescript), and the rest of the compiler, the templates and the other generators.
 */
let code: string | undefined;
function mcpgenDigest(): string {
  if (code) return code;
  const hash = createHash("sha256").update(compilerFingerprint());
  for (const dir of [path.dirname(fileURLToPath(import.meta.url)), fileURLToPath(new URL("../../templates", import.meta.url))]) {
    for (const file of (readdirSync(dir, { recursive: true }) as string[]).sort()) {
      const full = path.join(dir, file);
      if (statSync(full).isFile()) hash.update(`${file}\0`).update(readFileSync(full));
    }
  }
  for (const pkg of ["handlebars", "yaml", "@hyperjump/uri-template"])
    hash.update(readFileSync(require.resolve(`${pkg}/package.json`)));
  return (code = hash.digest("hex"));
}

/** The digest of a build's whole input. */
export function inputDigest(schemas: string, config: BuildConfig): string {
  return createHash("sha256")
    .update(JSON.stringify([schemas, config.schemasDir, config.outDir, config.handlersDir, mcpgenDigest()]))
    .digest("hex");
}

const stampFile = (config: BuildConfig) =>
  path.join(config.cacheDir!, `stamp-${createHash("sha256").update(config.outDir).digest("hex").slice(0, 16)}.json`);

/** The stamp of the last build into this output folder, if the input is the same and the output untouched. */
export function freshStamp(config: BuildConfig, input: string): Stamp | undefined {
  if (!config.cacheDir || config.check) return undefined;
  try {
    const stamp = JSON.parse(readFileSync(stampFile(config), "utf8")) as Stamp;
    if (stamp.input !== input) return undefined;
    const onDisk = outputsOf(config.outDir);
    if (onDisk.length !== stamp.outputs.length) return undefined;
    for (const [i, [file, size, mtimeMs]] of stamp.outputs.entries()) {
      const [f, s, m] = onDisk[i]!;
      if (f !== file || s !== size || m !== mtimeMs) return undefined;
    }
    return stamp.handlers.every((file) => existsSync(file)) ? stamp : undefined;
  } catch {
    return undefined;
  }
}

/** Records a build that wrote `config.outDir`. */
export function saveStamp(config: BuildConfig, stamp: Omit<Stamp, "outputs">): void {
  if (!config.cacheDir || config.check) return;
  const file = stampFile(config);
  const temp = `${file}.${process.pid}`;
  try {
    mkdirSync(config.cacheDir, { recursive: true });
    writeFileSync(temp, JSON.stringify({ ...stamp, outputs: outputsOf(config.outDir) }));
    renameSync(temp, file);
  } catch {
    rmSync(temp, { force: true }); // only speed is lost
  }
}

function outputsOf(dir: string): Stamp["outputs"] {
  const out: Stamp["outputs"] = [];
  for (const file of (readdirSync(dir, { recursive: true }) as string[]).sort()) {
    const stat = statSync(path.join(dir, file));
    if (stat.isFile()) out.push([file.split(path.sep).join("/"), stat.size, stat.mtimeMs]);
  }
  return out;
}
