/**
 * The handlers `mcpgen import openapi` writes: `_openapi.ts`, a small fetch client shared by all of them
 * (base URL and credentials from environment variables), and per tool the stub that `build()` just created,
 * its body replaced by a call to that client with the operation's description. Both are the user's files
 * from then on; neither is written over an existing file.
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ImportedApi } from "./openapi.js";

export const CLIENT_FILE = "_openapi.ts";

/** The shared client, with the API's base-URL variable and default baked in. */
export function clientSource(api: ImportedApi): string {
  const base = `${api.prefix}_BASE_URL`;
  return `// HTTP client of the handlers imported from an OpenAPI description. This file is yours: mcpgen import
// wrote it once. The base URL comes from ${base}${api.defaultBaseUrl ? ` (default ${JSON.stringify(api.defaultBaseUrl).slice(1, -1)})` : ""},
// credentials from the variables named in each operation's \`auth\`.
import { ToolError } from "@mcpgen/runtime";

export interface Operation {
  method: string;
  path: string;
  params: { property: string; in: "path" | "query" | "header" | "body" | "field"; name: string }[];
  auth: { env: string; in: "header" | "query"; name: string; scheme: "bearer" | "basic" | "apiKey" }[];
  structured: boolean;
}

const DEFAULT_BASE_URL: string | undefined = ${JSON.stringify(api.defaultBaseUrl)};

/** Performs \`operation\` with \`input\`; answers the JSON body (or the text, when not JSON). */
export async function callOperation(operation: Operation, input: object, signal?: AbortSignal): Promise<unknown> {
  const base = process.env.${base} ?? DEFAULT_BASE_URL;
  if (!base) throw new ToolError("${base} is not set: the API's base URL is needed");
  const values = input as Record<string, unknown>;
  let path = operation.path;
  const url = new URL(base.replace(/\\/+$/, "") + "/");
  const headers = new Headers({ accept: "application/json" });
  let body: unknown;
  let fields: Record<string, unknown> | undefined;
  const query: [string, string][] = [];
  for (const p of operation.params) {
    const value = values[p.property];
    if (value === undefined) continue;
    const text = typeof value === "string" ? value : JSON.stringify(value);
    if (p.in === "path") path = path.split(\`{\${p.name}}\`).join(encodeURIComponent(text));
    else if (p.in === "query") for (const item of Array.isArray(value) ? value : [value]) query.push([p.name, typeof item === "string" ? item : JSON.stringify(item)]);
    else if (p.in === "header") headers.set(p.name, text);
    else if (p.in === "field") (fields ??= {})[p.name] = value;
    else body = value;
  }
  if (fields) body = fields;
  if (body !== undefined) headers.set("content-type", "application/json");
  for (const a of operation.auth) {
    const credential = process.env[a.env];
    if (!credential) continue;
    const value = a.scheme === "bearer" ? \`Bearer \${credential}\` : a.scheme === "basic" ? \`Basic \${Buffer.from(credential).toString("base64")}\` : credential;
    if (a.in === "header") headers.set(a.name, value);
    else query.push([a.name, value]);
  }
  const target = new URL(path.replace(/^\\/+/, ""), url);
  for (const [k, v] of query) target.searchParams.append(k, v);
  const response = await fetch(target, { method: operation.method, headers, ...(body !== undefined && { body: JSON.stringify(body) }), ...(signal && { signal }) });
  const text = await response.text();
  if (!response.ok) throw new ToolError(\`\${operation.method} \${target.pathname} answered \${response.status} \${response.statusText}: \${text.slice(0, 2000)}\`);
  const json = /json/i.test(response.headers.get("content-type") ?? "");
  if (operation.structured) {
    if (!json) throw new ToolError(\`\${operation.method} \${target.pathname} answered \${response.headers.get("content-type") ?? "no content type"}, not the JSON its output schema describes\`);
    return JSON.parse(text);
  }
  return text;
}
`;
}

/** The body of one tool's handler, replacing the stub's. */
export function handlerSource(stub: string, operation: unknown): string | undefined {
  const match = /^import type \{ (\w+) \} from ("[^"]+");$/m.exec(stub);
  if (!match) return undefined;
  const [, type, from] = match;
  const header = stub.split("\n").slice(0, 2).join("\n");
  return `${header}
import type { ${type} } from ${from};
import { callOperation, type Operation } from "./${CLIENT_FILE.replace(/\.ts$/, ".js")}";

const operation: Operation = ${JSON.stringify(operation, null, 2)};

const handler: ${type} = async (input, ctx) => (await callOperation(operation, input, ctx.signal)) as Awaited<ReturnType<${type}>>;

export default handler;
`;
}

/** Rewrites the stubs `build()` created just now for the imported tools; writes the client if it is missing. */
export async function writeHandlers(api: ImportedApi, handlersDir: string, created: Set<string>): Promise<number> {
  let count = 0;
  for (const [name, operation] of api.operations) {
    const file = path.join(handlersDir, `${name}.ts`);
    if (!created.has(path.resolve(file))) continue;
    const source = handlerSource(await readFile(file, "utf8"), operation);
    if (source === undefined) continue;
    await writeFile(file, source);
    count++;
  }
  await writeFile(path.join(handlersDir, CLIENT_FILE), clientSource(api), { flag: "wx" }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
  });
  return count;
}
