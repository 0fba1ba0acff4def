/**
 * `mcpgen init` options, resolved here in one place into one fully-defaulted config: the target folder,
 * the package name (checked against npm's rules), its MCP Registry name and the dependencies the new
 * project starts with (and which of them it gets as tarballs in its own vendor/ folder).
 */
import { readFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { OutputError } from "../compiler/write.js";

export interface InitOptions {
  /** Package and server name (default: the folder's name). Must be a valid npm package name. */
  name?: string;
  /** The MCP Registry name (`mcpName`), reverse-DNS `namespace/name` (default: see `defaultMcpName`). */
  mcpName?: string;
  /** How the new project depends on mcpgen, a devDependency (default: see `RUNTIME_PACKAGE`'s note). */
  mcpgen?: string;
  /** How the new project depends on the runtime, its one dependency (default: likewise). */
  runtime?: string;
  /** Folder that a relative `dir` is resolved against (default `process.cwd()`). */
  cwd?: string;
}

/** A package the new project gets as a tarball in `vendor/`, packed from this installation. */
export interface VendoredPackage {
  name: string;
  /** The installed package folder `npm pack` packs. */
  from: string;
  /** Its tarball, relative to the project (forward slashes): what the dependency's `file:` points at. */
  file: string;
}

export interface InitConfig {
  /** The folder to create, absolute. */
  dir: string;
  name: string;
  /** The command the package installs (`bin`): the name without its scope. */
  bin: string;
  mcpName: string;
  /** The version the new package and its server start at. */
  version: string;
  /** Dependency specs of the new package.json. */
  dependencies: { runtime: string };
  devDependencies: { mcpgen: string; typescript: string; typesNode: string };
  /** Packed into `vendor/`; when the runtime is among them the package bundles it, so its tarball is whole. */
  vendor: VendoredPackage[];
  /** The Node.js versions the new package supports: mcpgen's own `engines.node`. */
  node: string;
}

/**
 * A problem with what `mcpgen init` was asked to do (a folder that is not empty, a bad name). It is an
 * `OutputError`, so the CLI prints its message and exits 1.
 */
export class InitError extends OutputError {
  override name = "InitError";
}

interface PackageJson {
  name: string;
  version: string;
  engines?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** The root of the mcpgen installation running this code (holds package.json, bin/, dist/, templates/). */
export const MCPGEN_ROOT = fileURLToPath(new URL("../../", import.meta.url)).replace(/[\\/]+$/, "");
const MCPGEN = JSON.parse(readFileSync(path.join(MCPGEN_ROOT, "package.json"), "utf8")) as PackageJson;

/** What a generated server imports at run time: its only dependency. */
export const RUNTIME_PACKAGE = "@mcpgen/runtime";

/**
 * Flip to `true` when mcpgen and its runtime are published: new projects then depend on `^<version>` of
 * both. Until then a new project gets both as tarballs packed from this installation into its `vendor/`
 * folder (`file:vendor/…`, relative, so the project works wherever it is copied or cloned), and bundles
 * the runtime, so the package it publishes installs from its own tarball alone.
 */
export const PUBLISHED = false;

export function resolveInitConfig(dir: string, options: InitOptions = {}): InitConfig {
  const target = path.resolve(options.cwd ?? process.cwd(), dir);
  const name = options.name ?? path.basename(target);
  const problem = packageNameProblem(name);
  if (problem !== undefined)
    throw new InitError(
      `${JSON.stringify(name)} is not a valid npm package name: ${problem}; ` +
        (options.name === undefined ? "choose one with --name" : "choose another"),
    );
  const mcpName = options.mcpName ?? defaultMcpName(name);
  if (!MCP_NAME.test(mcpName))
    throw new InitError(`${JSON.stringify(mcpName)} is not an MCP Registry name: use reverse-DNS namespace/name, e.g. io.github.<user>/<server>`);
  const vendor: VendoredPackage[] = [];
  const spec = (packageName: string, given: string | undefined, root: () => string): string => {
    if (given !== undefined) return given;
    if (PUBLISHED) return `^${MCPGEN.version}`;
    const from = root();
    const { version } = JSON.parse(readFileSync(path.join(from, "package.json"), "utf8")) as PackageJson;
    const file = `vendor/${tarballName(packageName, version)}`;
    vendor.push({ name: packageName, from, file });
    return `file:${file}`;
  };
  return {
    dir: target,
    name,
    bin: name.replace(/^@[^/]+\//, ""),
    mcpName,
    version: "0.1.0",
    dependencies: { runtime: spec(RUNTIME_PACKAGE, options.runtime, runtimeRoot) },
    devDependencies: {
      mcpgen: spec(MCPGEN.name, options.mcpgen, () => MCPGEN_ROOT),
      typescript: declared("devDependencies", "typescript"),
      typesNode: declared("devDependencies", "@types/node"),
    },
    vendor,
    node: MCPGEN.engines?.["node"] ?? ">=20",
  };
}

/** The MCP Registry's server name: a reverse-DNS namespace, a slash, a name. */
const MCP_NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;

/**
 * `io.github.<scope>/<name>` for a scoped package, else `io.github.<user>/<name>` with a placeholder user:
 * the registry checks the namespace against the publisher's GitHub account, which only the author knows.
 */
export function defaultMcpName(name: string): string {
  const scoped = SCOPED.exec(name);
  return scoped ? `io.github.${scoped[1]}/${scoped[2]}` : `io.github.your-github-user/${name}`;
}

/** The file `npm pack` writes for a package: `@scope/name` → `scope-name-<version>.tgz`. */
export const tarballName = (name: string, version: string): string => `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;

/** The folder of the runtime package this mcpgen resolves: the workspace in a checkout, else node_modules. */
function runtimeRoot(): string {
  try {
    return path.dirname(createRequire(import.meta.url).resolve(`${RUNTIME_PACKAGE}/package.json`));
  } catch {
    throw new InitError(`${RUNTIME_PACKAGE} is not installed beside this mcpgen, so it cannot be packed into the new project: install it, or pass --runtime <spec>`);
  }
}

/** The range mcpgen's own package.json declares for `name`: the versions mcpgen is built and tested with. */
function declared(field: "dependencies" | "devDependencies", name: string): string {
  const range = MCPGEN[field]?.[name];
  if (range === undefined) throw new Error(`mcpgen's package.json declares no ${name} in ${field}`);
  return range;
}

const SCOPED = /^@([^/]+)\/([^/]+)$/;

/**
 * Why `name` cannot be the name of a new npm package, or undefined if it can. The rules of
 * `validate-npm-package-name` for new packages: at most 214 characters, lowercase, URL-safe, no leading
 * `.` or `_`, none of `~'!()*`, not a Node.js core module.
 */
export function packageNameProblem(name: string): string | undefined {
  if (name.length === 0) return "it is empty";
  if (name.length > 214) return "it is longer than 214 characters";
  if (name.trim() !== name) return "it has leading or trailing spaces";
  if (name !== name.toLowerCase()) return "it has uppercase letters";
  const scoped = SCOPED.exec(name);
  const [scope, bare] = scoped ? [scoped[1]!, scoped[2]!] : [undefined, name];
  for (const part of scope === undefined ? [bare] : [scope, bare]) {
    if (part.startsWith(".")) return "it starts with a period";
    if (part.startsWith("_")) return "it starts with an underscore";
    if (/[~'!()*]/.test(part)) return "it contains one of the characters ~'!()*";
    if (encodeURIComponent(part) !== part) return "it can only contain URL-friendly characters (letters, digits, - . _)";
  }
  if (scope === undefined && (name === "node_modules" || name === "favicon.ico")) return "that name is reserved";
  if (scope === undefined && builtinModules.includes(name)) return "it is the name of a Node.js core module";
  return undefined;
}
