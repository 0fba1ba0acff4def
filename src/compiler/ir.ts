/**
 * IR: one typed description of the whole server, the only thing emitters see. In: `Checked` +
 * `Normalized`. Out: `ServerIR`, with every name, order and wire payload decided.
 */
import type { WireTool } from "../runtime/registry.js";
import type { Dialect } from "./ajv.js";
import type { Checked, ServerFile, ToolExample } from "./check.js";
import { compare } from "./diagnostics.js";
import type { Normalized, TypeUnit } from "./normalize.js";
import { typeName } from "./names.js";

export interface ToolIR {
  name: string;
  /** The tool's name as a type-name stem (`files.read` → `FilesRead`). */
  typeName: string;
  hidden: boolean;
  /** Exactly what `tools/list` sends for this tool. */
  wire: WireTool;
  dialect: Dialect;
  inputType: string;
  outputType: string | undefined;
  examples: ToolExample[];
  /** The tool's file and the defs files its schemas use. */
  sources: string[];
}

export interface ServerIR {
  server: Omit<ServerFile, "instructions">;
  instructions: string | undefined;
  /** Sorted by name; hidden tools included. */
  tools: ToolIR[];
  /** Sorted by name. */
  typeUnits: TypeUnit[];
  /** Every input file, sorted. */
  sources: string[];
}

export function toIR(checked: Checked, normalized: Normalized): ServerIR {
  const { instructions, ...server } = checked.server;
  const tools = normalized.tools
    .map(({ tool, annotations, inputSchema, outputSchema, inputType, outputType, uses }): ToolIR => {
      const f = tool.file;
      const wire: WireTool = {
        name: f.name,
        ...(f.title !== undefined && { title: f.title }),
        ...(f.description !== undefined && { description: f.description }),
        inputSchema,
        ...(outputSchema !== undefined && { outputSchema }),
        ...(Object.keys(annotations).length > 0 && { annotations: orderHints(annotations) }),
        ...(f.icons !== undefined && { icons: f.icons }),
        ...(f._meta !== undefined && { _meta: f._meta }),
      };
      return {
        name: f.name,
        typeName: typeName(f.name),
        hidden: f.hidden === true,
        wire,
        dialect: tool.dialect,
        inputType,
        outputType,
        examples: f.examples ?? [],
        sources: [f.doc.file, ...uses],
      };
    })
    .sort((a, b) => compare(a.name, b.name));
  return {
    server: {
      name: server.name,
      version: server.version,
      ...(server.title !== undefined && { title: server.title }),
      ...(server.description !== undefined && { description: server.description }),
      ...(server.websiteUrl !== undefined && { websiteUrl: server.websiteUrl }),
      ...(server.icons !== undefined && { icons: server.icons }),
    },
    instructions,
    tools,
    typeUnits: [...normalized.typeUnits].sort((a, b) => compare(a.name, b.name)),
    sources: [...new Set([checked.serverDoc.file, ...(checked.annotationsDoc ? [checked.annotationsDoc.file] : []), ...tools.flatMap((t) => t.sources)])].sort(compare),
  };
}

function orderHints(h: Record<string, unknown>): Record<string, unknown> {
  const order = ["title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"];
  return Object.fromEntries(order.filter((k) => h[k] !== undefined).map((k) => [k, h[k]]));
}
