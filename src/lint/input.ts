/**
 * What `lint` and `diff` read: a schemas folder (through the compiler's `surface()`), or a saved
 * `tools/list` answer (a JSON file). Either way the result is a `Listing`: every tool, prompt, resource
 * and template as it goes over the wire, each with the file and JSON pointer it is found at.
 */
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { DiagnosticError, surface } from "../compiler/index.js";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** One declared item: its wire form, the file it comes from and the pointer of the wire form in that file. */
export interface Item {
  wire: JsonObject;
  file: string;
  /** Where `wire` sits in `file`: "" for a schema file (its pointers are the wire's), `/tools/3` in a saved list. */
  at: string;
}

export interface Listing {
  /** The server's name, when known (server.json, or `serverInfo` in a saved list). */
  server: string | undefined;
  tools: Item[];
  prompts: Item[];
  resources: Item[];
  resourceTemplates: Item[];
}

/** Thrown for input that cannot be read at all (missing path, not JSON, no tools array). */
export class InputError extends Error {
  override name = "InputError";
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** Reads a schemas folder or a saved list; `shown` is how files are named in findings. */
export async function readListing(input: string, cwd = process.cwd(), shown = (file: string) => file): Promise<Listing> {
  const full = path.resolve(cwd, input);
  let stat;
  try {
    stat = statSync(full);
  } catch {
    throw new InputError(`${input}: no such file or folder`);
  }
  if (stat.isDirectory()) return readFolder(input, cwd, shown);
  return readSaved(full, shown(path.relative(cwd, full).split(path.sep).join("/")));
}

async function readFolder(schemas: string, cwd: string, shown: (file: string) => string): Promise<Listing> {
  const found = await surface({ schemas, cwd });
  const item = (d: { wire: object; file: string }): Item => ({ wire: d.wire as JsonObject, file: shown(d.file), at: "" });
  let server: string | undefined;
  try {
    const doc = JSON.parse(readFileSync(path.resolve(cwd, schemas, "server.json"), "utf8")) as unknown;
    if (isObject(doc) && typeof doc.name === "string") server = doc.name;
  } catch {
    // server.yaml or similar: the name is only used for the length rules, which then use the tool name alone
  }
  return {
    server,
    tools: found.tools.map(item),
    prompts: found.prompts.map(item),
    resources: found.resources.map(item),
    resourceTemplates: found.resourceTemplates.map(item),
  };
}

/**
 * A saved list: a `tools/list` result (`{ tools: [...] }`), a whole JSON-RPC response (`{ result: { tools } }`),
 * or the combined file `scripts/published-tools.mjs` writes (`{ serverInfo, tools, prompts, resources,
 * resourceTemplates }`).
 */
function readSaved(full: string, file: string): Listing {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(full, "utf8"));
  } catch (error) {
    throw new InputError(`${file}: not a schemas folder nor a JSON file: ${(error as Error).message}`);
  }
  let base = "";
  if (isObject(doc) && isObject(doc.result)) {
    doc = doc.result;
    base = "/result";
  }
  if (!isObject(doc) || !Array.isArray(doc.tools)) throw new InputError(`${file}#${base}: expected a tools/list result, an object with a "tools" array`);
  const list = (key: string): Item[] => {
    const value = (doc as JsonObject)[key];
    if (!Array.isArray(value)) return [];
    return value.flatMap((wire, i) => (isObject(wire) ? [{ wire, file, at: `${base}/${key}/${i}` }] : []));
  };
  const info = doc.serverInfo;
  return {
    server: isObject(info) && typeof info.name === "string" ? info.name : undefined,
    tools: list("tools"),
    prompts: list("prompts"),
    resources: list("resources"),
    resourceTemplates: list("resourceTemplates"),
  };
}

export { DiagnosticError };
