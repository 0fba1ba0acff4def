/** Options of `mcpgen bundle` and `mcpgen server-json`, resolved here, in one place, into one config. */
import path from "node:path";

export interface ShipOptions {
  /** Folder that relative paths are resolved against (default `process.cwd()`). */
  cwd?: string;
  /** The schemas folder (default `schemas`). */
  schemas?: string;
  /** The project's package.json (default `package.json`). */
  package?: string;
  /** `bundle`: the compiled server entry (default: the package's `bin`, else `build/generated/server.gen.js`). */
  entry?: string;
  /** The file to write (default: `<name>-<version>.mcpb` for `bundle`, `server.json` for `server-json`). */
  out?: string;
  /** `bundle`: a PNG file shipped as the bundle's icon. */
  icon?: string;
}

export interface ShipConfig {
  cwd: string;
  schemasDir: string;
  packageFile: string;
  /** Undefined: the package's `bin` (see `defaultEntry`). */
  entryFile: string | undefined;
  /** Undefined: the command's default, which may depend on package.json. */
  outFile: string | undefined;
  iconFile: string | undefined;
}

export const SHIP_DEFAULTS = {
  schemas: "schemas",
  package: "package.json",
  entry: "build/generated/server.gen.js",
  serverJson: "server.json",
} as const;

export function resolveShipConfig(options: ShipOptions = {}): ShipConfig {
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const at = (file: string) => path.resolve(cwd, file);
  return {
    cwd,
    schemasDir: at(options.schemas ?? SHIP_DEFAULTS.schemas),
    packageFile: at(options.package ?? SHIP_DEFAULTS.package),
    entryFile: options.entry === undefined ? undefined : at(options.entry),
    outFile: options.out === undefined ? undefined : at(options.out),
    iconFile: options.icon === undefined ? undefined : at(options.icon),
  };
}

/**
 * The compiled entry a package runs: its `bin` when it has one command (or one named after the package, as
 * `mcpgen init` makes it), else where this repository's example compiles it.
 */
export function defaultEntry(pkg: Record<string, unknown>): string {
  const { bin, name } = pkg;
  if (typeof bin === "string") return bin;
  if (bin !== null && typeof bin === "object") {
    const commands = Object.entries(bin as Record<string, unknown>).filter((entry): entry is [string, string] => typeof entry[1] === "string");
    const bare = typeof name === "string" ? name.replace(/^@[^/]+\//, "") : undefined;
    const own = commands.length === 1 ? commands[0] : commands.find(([command]) => command === bare);
    if (own) return own[1];
  }
  return SHIP_DEFAULTS.entry;
}

/** `@acme/tasks` 1.2.0 → `acme-tasks-1.2.0.mcpb`, the way `npm pack` names its tarball. */
export function defaultBundleName(packageName: string, version: string): string {
  return `${packageName.replace(/^@/, "").replace(/\//g, "-")}-${version}.mcpb`;
}

export function display(config: ShipConfig, file: string): string {
  const r = path.relative(config.cwd, file).split(path.sep).join("/");
  return r === "" ? "." : r;
}
