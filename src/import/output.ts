/**
 * What the importers share: a schemas folder held in memory (path → JSON value), written only into a new
 * or empty folder, so no file of the user's is ever replaced; and file names made from entry names.
 */
import { mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { OutputError } from "../compiler/index.js";

/** A schemas folder in memory: path relative to it (forward slashes) → JSON value. Notes: what could not be carried over. */
export interface Imported {
  files: Map<string, unknown>;
  notes: string[];
  counts: { tools: number; resources: number; templates: number; prompts: number; defs: number };
}

/** Writes `files` below `dir`, which must not exist or be empty. Returns the paths written, sorted. */
export async function writeSchemasFolder(dir: string, files: Map<string, unknown>): Promise<string[]> {
  const present = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return [];
    throw new OutputError(`${dir}: cannot read the output folder: ${error.message}`);
  });
  if (present.length) throw new OutputError(`${dir}: the folder is not empty; import writes only into a new or empty folder (choose another --out, or move its files away)`);
  const written = [...files.keys()].sort();
  for (const rel of written) {
    const target = path.join(dir, ...rel.split("/"));
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, JSON.stringify(files.get(rel), null, 2) + "\n");
  }
  return written;
}

/**
 * A file name (without extension) for `name`, unique among `taken` (compared ignoring case, for
 * case-insensitive file systems): characters outside `A-Za-z0-9_-` become `_`.
 */
export function fileStem(name: string, taken: Set<string>): string {
  const base = name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 100) || "unnamed";
  let stem = base;
  for (let i = 2; taken.has(stem.toLowerCase()); i++) stem = `${base}_${i}`;
  taken.add(stem.toLowerCase());
  return stem;
}

/** Copies the members of `from` named in `keys` that are present. */
export function pick(from: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (from[key] !== undefined) out[key] = from[key];
  return out;
}
