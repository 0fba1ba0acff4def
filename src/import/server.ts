/**
 * `mcpgen import server`: connect to a running MCP server with the official SDK client (stdio or
 * Streamable HTTP), read its tools, resources, resource templates and prompts (every page), and turn
 * them into a schemas folder in mcpgen's format. What mcpgen cannot represent is left out with a note.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { fileStem, pick, type Imported } from "./output.js";

export type ServerSource = { command: string; args: string[]; cwd?: string } | { url: string };

type Entry = Record<string, unknown>;

/** Upper bound on pages per list, so a server that keeps returning a cursor cannot keep us forever. */
const MAX_PAGES = 1000;

const TOOL_FIELDS = ["title", "description", "inputSchema", "outputSchema", "execution", "icons", "_meta"] as const;
const ANNOTATION_FIELDS = ["title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;
const RESOURCE_FIELDS = ["uri", "uriTemplate", "title", "description", "mimeType", "size", "icons", "annotations", "_meta"] as const;
const PROMPT_FIELDS = ["title", "description", "icons", "_meta"] as const;
const PROMPT_ARGUMENT_FIELDS = ["name", "title", "description", "required"] as const;
const SERVER_FIELDS = ["name", "version", "title", "description", "websiteUrl", "icons"] as const;

/** What a server lists, as the SDK client returned it. */
export interface Listing {
  serverInfo: Entry;
  instructions: string | undefined;
  tools: Entry[];
  resources: Entry[];
  templates: Entry[];
  prompts: Entry[];
}

/** Connects, lists everything the server declares (all pages), disconnects. */
export async function readServer(source: ServerSource): Promise<Listing> {
  const client = new Client({ name: "mcpgen-import", version: "1" });
  const transport =
    "url" in source
      ? new StreamableHTTPClientTransport(new URL(source.url))
      : new StdioClientTransport({ command: source.command, args: source.args, ...(source.cwd && { cwd: source.cwd }), stderr: "ignore" });
  await client.connect(transport);
  try {
    const caps = client.getServerCapabilities() ?? {};
    const pages = async (list: (cursor: string | undefined) => Promise<{ nextCursor?: string | undefined } & Entry>, key: string): Promise<Entry[]> => {
      const all: Entry[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const result = await list(cursor);
        all.push(...((result[key] as Entry[] | undefined) ?? []));
        cursor = result.nextCursor;
        if (!cursor) break;
      }
      return all;
    };
    const at = (cursor: string | undefined) => (cursor === undefined ? {} : { cursor });
    return {
      serverInfo: (client.getServerVersion() ?? { name: "imported", version: "0.0.0" }) as Entry,
      instructions: client.getInstructions(),
      tools: caps.tools ? await pages((c) => client.listTools(at(c)), "tools") : [],
      resources: caps.resources ? await pages((c) => client.listResources(at(c)), "resources") : [],
      templates: caps.resources ? await pages((c) => client.listResourceTemplates(at(c)), "resourceTemplates") : [],
      prompts: caps.prompts ? await pages((c) => client.listPrompts(at(c)), "prompts") : [],
    };
  } finally {
    await client.close();
  }
}

/** `name` as mcpgen accepts it (A-Z a-z 0-9 _ . -, at most 128), unique among `taken`. */
function identifierName(name: string, taken: Set<string>): string {
  const base = name.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 120) || "unnamed";
  let unique = base;
  for (let i = 2; taken.has(unique); i++) unique = `${base}_${i}`;
  taken.add(unique);
  return unique;
}

/** Turns a listing into mcpgen's schemas folder. */
export function toSchemas(listing: Listing): Imported {
  const files = new Map<string, unknown>();
  const notes: string[] = [];
  const left = (what: string, entry: Entry, kept: readonly string[]) => {
    const dropped = Object.keys(entry).filter((k) => k !== "name" && !kept.includes(k));
    if (dropped.length) notes.push(`${what}: ${dropped.map((k) => `"${k}"`).join(", ")} cannot be represented in mcpgen's format and was left out`);
  };

  const server: Entry = pick(listing.serverInfo, SERVER_FIELDS);
  if (listing.instructions !== undefined) server.instructions = listing.instructions;
  left("server info", listing.serverInfo, SERVER_FIELDS);
  files.set("server.json", server);

  const hints: Record<string, Entry> = {};
  const toolStems = new Set<string>();
  for (const tool of listing.tools) {
    const name = String(tool.name);
    const file: Entry = { name, ...pick(tool, TOOL_FIELDS) };
    left(`tool "${name}"`, tool, [...TOOL_FIELDS, "annotations"]);
    const annotations = tool.annotations as Entry | undefined;
    if (annotations && typeof annotations === "object") {
      hints[name] = pick(annotations, ANNOTATION_FIELDS);
      left(`tool "${name}" annotations`, annotations, ANNOTATION_FIELDS);
    } else hints[name] = {};
    files.set(`tools/${fileStem(name, toolStems)}.json`, file);
  }
  // Tools without hints keep none: the manifest does not require them, so tools/list stays as it was.
  files.set("annotations.json", { requireHints: false, tools: hints });

  const resourceStems = new Set<string>();
  const resourceNames = new Set<string>();
  for (const [what, list] of [["resource", listing.resources], ["resource template", listing.templates]] as const) {
    for (const resource of list) {
      const original = String(resource.name);
      left(`${what} "${original}"`, resource, RESOURCE_FIELDS);
      // mcpgen names resources, templates and prompts like identifiers (handler files and types are named after them).
      const name = identifierName(original, resourceNames);
      if (name !== original) notes.push(`${what} "${original}" is named "${name}" (names are 1-128 characters of A-Z a-z 0-9 _ . -); its title keeps the original`);
      const file: Entry = { name, ...pick(resource, RESOURCE_FIELDS) };
      if (name !== original && file.title === undefined) file.title = original;
      files.set(`resources/${fileStem(name, resourceStems)}.json`, file);
    }
  }

  const promptStems = new Set<string>();
  for (const prompt of listing.prompts) {
    const name = String(prompt.name);
    left(`prompt "${name}"`, prompt, [...PROMPT_FIELDS, "arguments"]);
    const file: Entry = { name, ...pick(prompt, PROMPT_FIELDS) };
    if (Array.isArray(prompt.arguments)) {
      file.arguments = (prompt.arguments as Entry[]).map((argument) => {
        left(`prompt "${name}" argument "${String(argument.name)}"`, argument, PROMPT_ARGUMENT_FIELDS);
        return pick(argument, PROMPT_ARGUMENT_FIELDS);
      });
    }
    files.set(`prompts/${fileStem(name, promptStems)}.json`, file);
  }

  return {
    files,
    notes,
    counts: { tools: listing.tools.length, resources: listing.resources.length, templates: listing.templates.length, prompts: listing.prompts.length, defs: 0 },
  };
}
