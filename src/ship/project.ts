/**
 * What the distribution formats are made from: the project's package.json, the server as the compiler
 * sees it (schemas/ through load → check → normalize → IR, nothing emitted) and the declared settings.
 */
import { readFile } from "node:fs/promises";
import { check } from "../compiler/check.js";
import { isWarning, type Diagnostic } from "../compiler/diagnostics.js";
import { toIR, type ServerIR } from "../compiler/ir.js";
import { load } from "../compiler/load.js";
import { normalize } from "../compiler/normalize.js";
import { display, type ShipConfig } from "./config.js";
import { readSettings, type Setting } from "./settings.js";

export interface Project {
  /** package.json, parsed, with its display path. */
  pkg: Record<string, unknown>;
  pkgFile: string;
  /** The display path of schemas/server.json. */
  serverFile: string;
  ir: ServerIR;
  settings: Setting[];
}

export async function readProject(config: ShipConfig): Promise<{ project: Project | undefined; diagnostics: Diagnostic[] }> {
  const diagnostics: Diagnostic[] = [];
  const pkgFile = display(config, config.packageFile);
  let pkg: Record<string, unknown> | undefined;
  try {
    const value: unknown = JSON.parse(await readFile(config.packageFile, "utf8"));
    if (value === null || typeof value !== "object" || Array.isArray(value)) diagnostics.push({ file: pkgFile, pointer: "", message: "must be a JSON object" });
    else pkg = value as Record<string, unknown>;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    diagnostics.push({ file: pkgFile, pointer: "", message: code === "ENOENT" ? "not found (choose another with --package)" : `cannot be read: ${(error as Error).message}` });
  }
  const { settings, diagnostics: settingProblems } = pkg ? readSettings(pkg, pkgFile) : { settings: [], diagnostics: [] };
  diagnostics.push(...settingProblems);

  // The compiler's warnings (an unknown format, say) are not the formats' business: `mcpgen build` reports them.
  const errors = (found: readonly Diagnostic[]) => found.filter((d) => !isWarning(d));
  const loaded = await load(config.schemasDir, config.cwd);
  const loadErrors = errors(loaded.diagnostics);
  const checked = loaded.sources && !loadErrors.length ? check(loaded.sources) : undefined;
  const checkErrors = errors(checked?.diagnostics ?? []);
  const normalized = checked?.checked && !checkErrors.length ? normalize(checked.checked) : undefined;
  const normalizeErrors = errors(normalized?.diagnostics ?? []);
  diagnostics.push(...loadErrors, ...checkErrors, ...normalizeErrors);
  // Settings problems do not stop the formats' own checks: every problem is reported at once.
  if (!pkg || !checked?.checked || !normalized || loadErrors.length || checkErrors.length || normalizeErrors.length) {
    return { project: undefined, diagnostics };
  }

  const serverFile = loaded.sources?.server?.file ?? `${display(config, config.schemasDir)}/server.json`;
  return { project: { pkg, pkgFile, serverFile, ir: toIR(checked.checked, normalized.normalized), settings }, diagnostics };
}

/** A string field of package.json, or undefined. */
export function pkgString(project: Project, field: string): string | undefined {
  const value = project.pkg[field];
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

/** The description both formats use: schemas/server.json's, else package.json's, with where it came from. */
export function description(project: Project): { text: string; file: string } | undefined {
  const fromServer = project.ir.server.description;
  if (fromServer !== undefined && fromServer.trim() !== "") return { text: fromServer, file: project.serverFile };
  const fromPkg = pkgString(project, "description");
  return fromPkg === undefined ? undefined : { text: fromPkg, file: project.pkgFile };
}

/** package.json's `repository` (a string or `{ url, directory }`) as a plain https URL and subfolder. */
export function repository(project: Project): { url: string; directory: string | undefined } | undefined {
  const raw = project.pkg.repository;
  const url = typeof raw === "string" ? raw : raw && typeof raw === "object" ? (raw as { url?: unknown }).url : undefined;
  if (typeof url !== "string" || url === "") return undefined;
  const dir = raw && typeof raw === "object" ? (raw as { directory?: unknown }).directory : undefined;
  // npm's shorthands and git URLs: "github:o/r", "o/r", "git+https://github.com/o/r.git", "git@github.com:o/r.git".
  const plain = url
    .replace(/^github:/, "https://github.com/")
    .replace(/^gitlab:/, "https://gitlab.com/")
    .replace(/^([\w.-]+\/[\w.-]+)$/, "https://github.com/$1")
    .replace(/^git\+/, "")
    .replace(/^git@([^:]+):/, "https://$1/")
    .replace(/^(git|ssh):\/\/(git@)?/, "https://")
    .replace(/\.git$/, "");
  return { url: plain, directory: typeof dir === "string" && dir !== "" ? dir : undefined };
}
