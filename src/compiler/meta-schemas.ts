/**
 * mcpgen's own meta-schemas: the shape of every input file. `check` validates each file against its
 * meta-schema before any semantic rule runs.
 */

/** An object with exactly these properties, `required` among them. */
export function closedObject(required: string[], properties: Record<string, unknown>) {
  return { type: "object", required, additionalProperties: false, properties };
}

const icon = closedObject(["src"], {
  src: { type: "string", minLength: 1 },
  mimeType: { type: "string" },
  sizes: { type: "array", items: { type: "string" } },
  theme: { enum: ["light", "dark"] },
});

const icons = { type: "array", items: icon };
const meta = { type: "object" };

/** What every tool, resource and prompt file may say about itself. */
const named = {
  $schema: { type: "string" },
  name: { type: "string" },
  title: { type: "string" },
  description: { type: "string" },
  icons,
  _meta: meta,
};

export const HINT_KEYS = ["title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;
export type Hints = Partial<{ title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean }>;

const hints = {
  title: { type: "string" },
  readOnlyHint: { type: "boolean" },
  destructiveHint: { type: "boolean" },
  idempotentHint: { type: "boolean" },
  openWorldHint: { type: "boolean" },
};

const presetRef = { type: "string", minLength: 1 };

export const serverFileSchema = {
  type: "object",
  required: ["name", "version"],
  additionalProperties: false,
  properties: {
    $schema: { type: "string" },
    name: { type: "string", minLength: 1 },
    version: { type: "string", minLength: 1 },
    title: { type: "string" },
    description: { type: "string" },
    instructions: { type: "string" },
    websiteUrl: { type: "string", format: "uri" },
    icons,
  },
};

export const annotationsFileSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    $schema: { type: "string" },
    requireHints: { type: "boolean" },
    presets: {
      type: "object",
      additionalProperties: { type: "object", additionalProperties: false, properties: hints },
    },
    tools: {
      type: "object",
      additionalProperties: {
        anyOf: [
          presetRef,
          { type: "array", items: presetRef, minItems: 1 },
          {
            type: "object",
            additionalProperties: false,
            properties: { preset: { anyOf: [presetRef, { type: "array", items: presetRef }] }, ...hints },
          },
        ],
      },
    },
  },
};

export const toolFileSchema = {
  type: "object",
  required: ["inputSchema"],
  additionalProperties: false,
  properties: {
    ...named,
    inputSchema: { type: ["object", "boolean"] },
    outputSchema: { type: ["object", "boolean"] },
    hidden: { type: "boolean" },
    // MCP's ToolExecution: whether a call may (or must) run as a task.
    execution: {
      type: "object",
      additionalProperties: false,
      properties: { taskSupport: { enum: ["forbidden", "optional", "required"] } },
    },
    examples: {
      type: "array",
      items: {
        type: "object",
        required: ["input"],
        additionalProperties: false,
        properties: { description: { type: "string" }, input: {}, output: {}, isError: { type: "boolean" }, error: { type: "string" } },
      },
    },
  },
};

/** The presets every manifest has; a manifest may redefine them or add its own. */
export const BUILTIN_PRESETS: Record<string, Hints> = {
  readOnly: { readOnlyHint: true, openWorldHint: false },
  create: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  update: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  delete: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  external: { openWorldHint: true },
};

const contentAnnotations = {
  type: "object",
  additionalProperties: false,
  properties: {
    audience: { type: "array", items: { enum: ["user", "assistant"] }, uniqueItems: true },
    priority: { type: "number", minimum: 0, maximum: 1 },
    lastModified: { type: "string", format: "date-time" },
  },
};

/** `"complete"`: per argument or variable, fixed completion values or `"handler"` (the module's `complete` export). */
const complete = {
  type: "object",
  additionalProperties: { anyOf: [{ const: "handler" }, { type: "array", items: { type: "string" }, maxItems: 100 }] },
};

const resourceCommon = {
  ...named,
  mimeType: { type: "string" },
  annotations: contentAnnotations,
};

export const resourceFileSchema = {
  type: "object",
  required: ["uri"],
  additionalProperties: false,
  properties: {
    ...resourceCommon,
    uri: { type: "string", minLength: 1 },
    size: { type: "integer", minimum: 0 },
    text: { type: "string" },
    blob: { type: "string", pattern: "^[A-Za-z0-9+/]*={0,2}$" },
  },
};

export const templateFileSchema = {
  type: "object",
  required: ["uriTemplate"],
  additionalProperties: false,
  properties: {
    ...resourceCommon,
    uriTemplate: { type: "string", minLength: 1 },
    variables: {
      type: "object",
      additionalProperties: { type: "object", additionalProperties: false, properties: { description: { type: "string" }, schema: { type: ["object", "boolean"] } } },
    },
    complete,
  },
};

export const promptFileSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    ...named,
    arguments: {
      type: "array",
      items: closedObject(["name"], {
        name: { type: "string", minLength: 1 },
        title: { type: "string" },
        description: { type: "string" },
        required: { type: "boolean" },
        schema: { type: ["object", "boolean"] },
      }),
    },
    complete,
  },
};
