/**
 * `mcpgen init <dir>`: scaffolds a complete, installable server project — package.json with build /
 * start / check scripts, tsconfig, `schemas/` with one example tool and the annotation manifest, and that
 * tool's implemented handler in `src/handlers/`. Reads like its steps: resolve the options → make sure
 * the folder is new or empty → render the files → write them (never overwriting anything).
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { InitError, resolveInitConfig, type InitOptions, type VendoredPackage } from "./config.js";
import { scaffold } from "./scaffold.js";

export {
  defaultMcpName,
  InitError,
  MCPGEN_ROOT,
  packageNameProblem,
  PUBLISHED,
  resolveInitConfig,
  RUNTIME_PACKAGE,
  tarballName,
  type InitConfig,
  type InitOptions,
  type VendoredPackage,
} from "./config.js";
export { EXAMPLE_TOOL, SCAFFOLD, scaffold, scaffoldView, type ScaffoldView } from "./scaffold.js";

export interface InitResult {
  /** The project folder, absolute. */
  dir: string;
  /** Its package (and server) name. */
  name: string;
  /** The files created, relative to `dir` (forward slashes), sorted. */
  files: string[];
}

/**
 * Creates a new project in `dir`. Throws `InitError` if `dir` is not empty or the name is not valid.
 * `progress` hears of the slow step, packing the vendored packages.
 */
export async function init(dir: string, options: InitOptions = {}, progress: (message: string) => void = () => {}): Promise<InitResult> {
  const config = resolveInitConfig(dir, options);
  await assertNewOrEmpty(config.dir);
  const tarballs = await Promise.all(config.vendor.map((pkg) => packed(pkg, progress)));
  const files = new Map<string, string | Uint8Array>([...scaffold(config), ...config.vendor.map((pkg, i) => [pkg.file, tarballs[i]!] as const)]);
  await writeNew(config.dir, files);
  return { dir: config.dir, name: config.name, files: [...files.keys()].sort() };
}

const packs = new Map<string, Promise<Uint8Array>>();

/** `npm pack` of a vendored package, once per process: the tarball. */
function packed(pkg: VendoredPackage, progress: (message: string) => void): Promise<Uint8Array> {
  let tarball = packs.get(pkg.from);
  if (!tarball) {
    progress(`packing ${pkg.name} from ${pkg.from}`);
    tarball = pack(pkg);
    packs.set(pkg.from, tarball);
    tarball.catch(() => packs.delete(pkg.from));
  }
  return tarball;
}

/** Packs into a temporary folder, reads the tarball and removes the folder. */
async function pack(pkg: VendoredPackage): Promise<Uint8Array> {
  const destination = await mkdtemp(path.join(tmpdir(), "mcpgen-pack-"));
  // --ignore-scripts: an installation is already built; packing must not rebuild (or need the sources of) it.
  const args = ["pack", pkg.from, "--pack-destination", destination, "--ignore-scripts", "--json", "--silent"];
  try {
    const { stdout } = await promisify(execFile)(process.platform === "win32" ? "npm.cmd" : "npm", args, { shell: process.platform === "win32" });
    const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
    return await readFile(path.join(destination, filename));
  } catch (error) {
    throw new InitError(`could not pack ${pkg.name} from ${pkg.from} with npm: ${(error as Error).message.trim()}`);
  } finally {
    await rm(destination, { recursive: true, force: true });
  }
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
async function writeNew(dir: string, files: Map<string, string | Uint8Array>): Promise<void> {
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
