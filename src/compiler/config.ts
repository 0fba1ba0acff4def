/** Options are resolved here, in one place, into one fully-defaulted config. */
import path from "node:path";

export interface BuildOptions {
  /** The schemas folder (default `schemas`). */
  schemas?: string;
  /** Where generated files go; mcpgen owns this folder (default `generated`). */
  out?: string;
  /** Where handler stubs are created; the user owns these files (default `src/handlers`). */
  handlers?: string;
  /** Compare with what is on disk instead of writing (default false). */
  check?: boolean;
  /** Cache compiled types and validators between builds (default true). */
  cache?: boolean;
  /** Folder that relative paths are resolved against (default `process.cwd()`). */
  cwd?: string;
  /**
   * Threads that compile validators and types (default: one per CPU but one, at most 4, and only when
   * at least 200 tools and type units need compiling; an explicit number applies whatever the count).
   */
  jobs?: number;
  /** Also emit `client.gen.ts`, a typed client over the official SDK's `Client` (default false). */
  client?: boolean;
}

export interface BuildConfig {
  cwd: string;
  schemasDir: string;
  outDir: string;
  handlersDir: string;
  check: boolean;
  /** Undefined when caching is off. */
  cacheDir: string | undefined;
  /** Undefined: decided by the amount of work and the CPUs (see `BuildOptions.jobs`). */
  jobs: number | undefined;
  client: boolean;
}

export const DEFAULTS = { schemas: "schemas", out: "generated", handlers: "src/handlers" } as const;

export function resolveConfig(options: BuildOptions = {}): BuildConfig {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  return {
    cwd,
    schemasDir: path.resolve(cwd, options.schemas ?? DEFAULTS.schemas),
    outDir: path.resolve(cwd, options.out ?? DEFAULTS.out),
    handlersDir: path.resolve(cwd, options.handlers ?? DEFAULTS.handlers),
    check: options.check ?? false,
    cacheDir: options.cache === false ? undefined : path.join(cwd, "node_modules", ".cache", "mcpgen"),
    jobs: options.jobs,
    client: options.client ?? false,
  };
}

/** Problems with the folders themselves (the output folder is replaced whole, so it must be separate). */
export function configProblems(config: BuildConfig): string[] {
  const inside = (child: string, parent: string) => {
    const rel = path.relative(parent, child);
    return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
  };
  const problems: string[] = [];
  if (config.jobs !== undefined && !(Number.isInteger(config.jobs) && config.jobs >= 1 && config.jobs <= 64))
    problems.push(`--jobs must be a whole number from 1 to 64, not ${config.jobs}`);
  const out = config.outDir;
  for (const [what, dir] of [
    ["the schemas folder", config.schemasDir],
    ["the handlers folder", config.handlersDir],
    ["the working directory", config.cwd],
  ] as const) {
    if (inside(dir, out)) problems.push(`--out ${rel(config, out)} would replace ${what} (${rel(config, dir)}): choose a folder of its own`);
  }
  if (inside(out, config.schemasDir)) problems.push(`--out ${rel(config, out)} is inside the schemas folder: choose a folder of its own`);
  return problems;
}

export function rel(config: BuildConfig, file: string): string {
  const r = path.relative(config.cwd, file).split(path.sep).join("/");
  return r === "" ? "." : r;
}
