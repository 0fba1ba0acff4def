/**
 * IR: one typed description of the whole server, the only thing emitters see. In: `Checked` +
 * `Normalized`. Out: `ServerIR`, with every name, order and wire payload decided.
 */
import type { ResourceContents } from "@mcpgen/runtime";
import type { WirePrompt, WireResource, WireResourceTemplate, WireTool } from "@mcpgen/runtime";
import type { Completions, NormalizedPrimitives } from "./normalize-primitives.js";
import type { SchemaNode } from "./schema-walk.js";
import type { Origin } from "./bundle.js";
import type { Dialect } from "./ajv.js";
import type { Checked, ServerFile, ToolExample } from "./check.js";
import { compare } from "./diagnostics.js";
import type { Normalized, TypeUnit } from "./normalize.js";
import { typeName } from "./names.js";

export interface ToolIR {
  name: string;
  /** What the tool's IR is made from, as a digest (`NormalizedTool.digest`): emit keeps per-tool work by it. */
  digest: string;
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
  /** Per schema, the definitions of `wire` copied from defs files: name under `$defs` → file and pointer. */
  origins: { input: Record<string, Origin>; output: Record<string, Origin> };
}

export interface ResourceIR {
  name: string;
  typeName: string;
  wire: WireResource;
  /** Contents written in the schema file; when absent, a handler reads the resource. */
  contents: ResourceContents | undefined;
  sources: string[];
}

export interface TemplateIR {
  name: string;
  typeName: string;
  wire: WireResourceTemplate;
  variables: string[];
  /** Validates the variables object (values coerced to their declared types). */
  schema: SchemaNode;
  dialect: Dialect;
  variablesType: string;
  completions: Completions;
  sources: string[];
}

export interface PromptIR {
  name: string;
  typeName: string;
  wire: WirePrompt;
  schema: SchemaNode;
  dialect: Dialect;
  argumentsType: string;
  completions: Completions;
  sources: string[];
}

export interface ServerIR {
  server: Omit<ServerFile, "instructions">;
  instructions: string | undefined;
  /** Sorted by name; hidden tools included. */
  tools: ToolIR[];
  /** Each sorted by name. */
  resources: ResourceIR[];
  templates: TemplateIR[];
  prompts: PromptIR[];
  /** Sorted by name. */
  typeUnits: TypeUnit[];
  /** Every input file, sorted. */
  sources: string[];
}

export function toIR(checked: Checked, normalized: Normalized): ServerIR {
  const { instructions, ...server } = checked.server;
  const tools = normalized.tools
    .map(({ tool, digest, annotations, inputSchema, outputSchema, inputType, outputType, uses, origins }): ToolIR => {
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
        ...(f.execution !== undefined && { execution: f.execution }),
      };
      return {
        name: f.name,
        digest,
        typeName: typeName(f.name),
        hidden: f.hidden === true,
        wire,
        dialect: tool.dialect,
        inputType,
        outputType,
        examples: f.examples ?? [],
        sources: [f.doc.file, ...uses],
        origins,
      };
    })
    .sort((a, b) => compare(a.name, b.name));
  const primitives = primitivesIR(normalized.primitives);
  return {
    ...primitives,
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
    sources: [
      ...new Set([
        checked.serverDoc.file,
        ...(checked.annotationsDoc ? [checked.annotationsDoc.file] : []),
        ...[...tools, ...primitives.resources, ...primitives.templates, ...primitives.prompts].flatMap((t) => t.sources),
      ]),
    ].sort(compare),
  };
}

function orderHints(h: Record<string, unknown>): Record<string, unknown> {
  const order = ["title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"];
  return Object.fromEntries(order.filter((k) => h[k] !== undefined).map((k) => [k, h[k]]));
}

/** Present keys only, in a fixed order: the wire form of optional metadata. */
function pick<T extends object>(from: T, keys: (keyof T)[]): Partial<T> {
  return Object.fromEntries(keys.filter((k) => from[k] !== undefined).map((k) => [k, from[k]])) as Partial<T>;
}

function primitivesIR(p: NormalizedPrimitives): Pick<ServerIR, "resources" | "templates" | "prompts"> {
  const byName = <T extends { name: string }>(list: T[]) => list.sort((a, b) => compare(a.name, b.name));
  const resources = p.resources.map((r): ResourceIR => {
    const inline = r.text ?? r.blob;
    const size = r.size ?? (r.text !== undefined ? Buffer.byteLength(r.text) : r.blob !== undefined ? Buffer.from(r.blob, "base64").length : undefined);
    return {
      name: r.name,
      typeName: typeName(r.name),
      wire: { uri: r.uri, name: r.name, ...pick(r, ["title", "description", "mimeType"]), ...(size !== undefined && { size }), ...pick(r, ["icons", "annotations", "_meta"]) },
      contents:
        inline === undefined
          ? undefined
          : { uri: r.uri, ...(r.mimeType !== undefined && { mimeType: r.mimeType }), ...(r.text !== undefined ? { text: r.text } : { blob: r.blob! }) },
      sources: [r.doc.file],
    };
  });
  const templates = p.templates.map(({ file: t, schema, typeName: variablesType, completions }): TemplateIR => ({
    name: t.name,
    typeName: typeName(t.name),
    wire: { uriTemplate: t.uriTemplate, name: t.name, ...pick(t, ["title", "description", "mimeType", "icons", "annotations", "_meta"]) },
    variables: t.names,
    schema,
    dialect: t.dialect,
    variablesType,
    completions,
    sources: [t.doc.file],
  }));
  const prompts = p.prompts.map(({ file: f, schema, typeName: argumentsType, completions }): PromptIR => ({
    name: f.name,
    typeName: typeName(f.name),
    wire: {
      name: f.name,
      ...pick(f, ["title", "description"]),
      ...(f.arguments.length > 0 && { arguments: f.arguments.map((a) => ({ name: a.name, ...pick(a, ["title", "description", "required"]) })) }),
      ...pick(f, ["icons", "_meta"]),
    },
    schema,
    dialect: f.dialect,
    argumentsType,
    completions,
    sources: [f.doc.file],
  }));
  return { resources: byName(resources), templates: byName(templates), prompts: byName(prompts) };
}
