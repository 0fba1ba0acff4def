/**
 * `mcpgen init <dir>`: scaffolds a complete, installable server project — package.json with build /
 * start / check scripts, tsconfig, `schemas/` with one example tool and the annotation manifest, and that
 * tool's implemented handler in `src/handlers/`. Reads like its steps: resolve the options → make sure
 * the folder is new or empty → render the files → write them (never overwriting anything).
 */
import { mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { InitError, resolveInitConfig, type InitOptions } from "./config.js";
import { scaffold } from "./scaffold.js";

export { defaultMcpgenSpec, InitError, MCPGEN_ROOT, packageNameProblem, resolveInitConfig, type InitConfig, type InitOptions } from "./config.js";
export { EXAMPLE_TOOL, SCAFFOLD, scaffold, scaffoldView, type ScaffoldView } from "./scaffold.js";

export interface InitResult {
  /** The project folder, absolute. */
  dir: string;
  /** Its package (and server) name. */
  name: string;
  /** The files created, relative to `dir` (forward slashes), sorted. */
  files: string[];
}

/** Creates a new project in `dir`. Throws `InitError` if `dir` is not empty or the name is not valid. */
export async function init(dir: string, options: InitOptions = {}): Promise<InitResult> {
  const config = resolveInitConfig(dir, options);
  await assertNewOrEmpty(config.dir);
  const files = scaffold(config);
  await writeNew(config.dir, files);
  return { dir: config.dir, name: config.name, files: [...files.keys()] };
}

async function assertNewOrEmpty(dir: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return;
    if (code === "ENOTDIR") throw new InitError(`${dir} exists and is not a folder: choose a new folder`);
    throw error;
  }
  if (entries.length)
    throw new InitError(`${dir} is not empty (${entries.length} entr${entries.length === 1 ? "y" : "ies"}): mcpgen init only creates a project in a new or empty folder`);
}

/** Writes every file; `wx` makes sure nothing that appeared meanwhile is overwritten. */
async function writeNew(dir: string, files: Map<string, string>): Promise<void> {
  for (const [file, content] of files) {
    const target = path.join(dir, ...file.split("/"));
    await mkdir(path.dirname(target), { recursive: true });
    try {
      await writeFile(target, content, { flag: "wx" });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") throw new InitError(`${target} appeared while mcpgen init was writing: left as it was`);
      throw error;
    }
  }
}

/** `word` as one POSIX shell word, for commands the CLI suggests. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
