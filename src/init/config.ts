/**
 * `mcpgen init` options, resolved here in one place into one fully-defaulted config: the target folder,
 * the package name (checked against npm's rules) and the dependency ranges the new project starts with.
 */
import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { OutputError } from "../compiler/write.js";

export interface InitOptions {
  /** Package and server name (default: the folder's name). Must be a valid npm package name. */
  name?: string;
  /** How the new project depends on mcpgen (default: see `defaultMcpgenSpec`). */
  mcpgen?: string;
  /** Folder that a relative `dir` is resolved against (default `process.cwd()`). */
  cwd?: string;
}

export interface InitConfig {
  /** The folder to create, absolute. */
  dir: string;
  name: string;
  /** The version the new package and its server start at. */
  version: string;
  /** Dependency ranges of the new package.json. */
  dependencies: { mcpgen: string; ajv: string; ajvFormats: string };
  devDependencies: { typescript: string; typesNode: string };
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
  version: string;
  engines?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** The root of the mcpgen installation running this code (holds package.json, bin/, dist/, templates/). */
export const MCPGEN_ROOT = fileURLToPath(new URL("../../", import.meta.url)).replace(/[\\/]+$/, "");
const MCPGEN = JSON.parse(readFileSync(path.join(MCPGEN_ROOT, "package.json"), "utf8")) as PackageJson;

/**
 * Flip to `true` when mcpgen is published: from then on a scaffold made by an mcpgen installed from the
 * registry (one inside a `node_modules` folder, e.g. run by `npx mcpgen init`) depends on `^<version>`.
 */
export const PUBLISHED = false;

/**
 * mcpgen is not on the registry yet, so a new project depends on the installation that created it, as a
 * `file:` dependency on its root (npm links it). Once published, installations from the registry use a
 * version range instead; a checkout keeps the `file:` link.
 */
export function defaultMcpgenSpec(root: string = MCPGEN_ROOT, version: string = MCPGEN.version, published: boolean = PUBLISHED): string {
  const fromRegistry = published && root.split(/[\\/]/).includes("node_modules");
  return fromRegistry ? `^${version}` : `file:${root.split(path.sep).join("/")}`;
}

export function resolveInitConfig(dir: string, options: InitOptions = {}): InitConfig {
  const target = path.resolve(options.cwd ?? process.cwd(), dir);
  const name = options.name ?? path.basename(target);
  const problem = packageNameProblem(name);
  if (problem !== undefined)
    throw new InitError(
      `${JSON.stringify(name)} is not a valid npm package name: ${problem}; ` +
        (options.name === undefined ? "choose one with --name" : "choose another"),
    );
  return {
    dir: target,
    name,
    version: "0.1.0",
    dependencies: {
      mcpgen: options.mcpgen ?? defaultMcpgenSpec(),
      // The generated validators import ajv's runtime helpers and ajv-formats' formats themselves.
      ajv: declared("dependencies", "ajv"),
      ajvFormats: declared("dependencies", "ajv-formats"),
    },
    devDependencies: {
      typescript: declared("devDependencies", "typescript"),
      typesNode: declared("devDependencies", "@types/node"),
    },
    node: MCPGEN.engines?.["node"] ?? ">=20",
  };
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
