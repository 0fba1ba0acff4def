import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { build, DiagnosticError, formatDiagnostic, type BuildOptions, type BuildResult } from "mcpgen";

export const REPO = path.resolve(import.meta.dirname, "../..");
export const FIXTURES = path.join(REPO, "test/fixtures");

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/**
 * A fresh temporary project folder, removed after the test file. `inRepo` puts it below the repository
 * (in the ignored .tmp/), where `mcpgen` and its dependencies resolve as in an installed project.
 */
export async function tempProject(inRepo = false): Promise<string> {
  const parent = inRepo ? path.join(REPO, ".tmp") : tmpdir();
  await mkdir(parent, { recursive: true });
  const dir = await mkdtemp(path.join(parent, "mcpgen-test-"));
  dirs.push(dir);
  return dir;
}

/** Writes `files` (path → JSON value or text) below `dir/schemas`. */
export async function writeSchemas(dir: string, files: Record<string, unknown>): Promise<void> {
  for (const [file, value] of Object.entries(files)) {
    const target = path.join(dir, "schemas", file);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, typeof value === "string" ? value : JSON.stringify(value, null, 2));
  }
}

/** A minimal valid server around `tools` (name → tool file), with readOnly hints for each. */
export function server(tools: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    "server.json": { name: "test", version: "1.0.0" },
    "annotations.json": { tools: Object.fromEntries(Object.keys(tools).map((t) => [t, "readOnly"])) },
    ...Object.fromEntries(Object.entries(tools).map(([name, tool]) => [`tools/${name}.json`, tool])),
    ...extra,
  };
}

/** Builds `files` in a temp project; returns the result or the formatted diagnostics. */
export async function buildFiles(
  files: Record<string, unknown>,
  options: BuildOptions = {},
): Promise<{ dir: string; result?: BuildResult; diagnostics?: string[] }> {
  const dir = await tempProject();
  await writeSchemas(dir, files);
  try {
    return { dir, result: await build({ cwd: dir, cache: false, ...options }) };
  } catch (error) {
    if (error instanceof DiagnosticError) return { dir, diagnostics: error.diagnostics.map(formatDiagnostic) };
    throw error;
  }
}

/** Copies a fixture's schemas into a temp project and builds it there. */
export async function buildFixture(name: string, options: BuildOptions = {}): Promise<{ dir: string; result: BuildResult }> {
  const dir = await tempProject();
  await cp(path.join(FIXTURES, name, "schemas"), path.join(dir, "schemas"), { recursive: true });
  return { dir, result: await build({ cwd: dir, cache: false, ...options }) };
}

/** Every file below `dir` (relative path → content), sorted. */
export async function readTree(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const entry of (await readdir(dir, { recursive: true, withFileTypes: true })).sort((a, b) =>
    path.join(a.parentPath, a.name) < path.join(b.parentPath, b.name) ? -1 : 1,
  )) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    out.set(path.relative(dir, full).split(path.sep).join("/"), await readFile(full, "utf8"));
  }
  return out;
}

export async function readJson<T = unknown>(file: string): Promise<T> {
  return JSON.parse(await readFile(file, "utf8")) as T;
}

/**
 * The wire tools (listed and hidden) of a built registry, parsed from its per-tool constants (the JSON text
 * each one reads).
 */
export async function wireTools(dir: string): Promise<Record<string, Record<string, unknown>>> {
  const text = await readFile(path.join(dir, "generated/registry.gen.ts"), "utf8");
  // Each tool's JSON text is a string literal on one line; evaluated, it is the text the server lists.
  const texts = [...text.matchAll(/^const tool\w+ = ('.*');$/gm)].map((m) => new Function(`return ${m[1]!}`)() as string);
  const tools = texts.map((t) => JSON.parse(t) as Record<string, unknown>);
  return Object.fromEntries(tools.map((t) => [t.name as string, t]));
}
