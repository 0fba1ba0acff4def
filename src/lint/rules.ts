/**
 * The lint rules: what a client or model provider accepts in a tool list, one named rule per limit, each
 * with the page it comes from. A profile is the set of rules of one provider or client. docs/lint.md lists
 * them; a test keeps that page and this table in step.
 */
import type { Item, JsonObject, Listing } from "./input.js";
import { escape, isObjectSchema, walk } from "./walk.js";

export const PROFILES = ["openai-strict", "gemini", "anthropic", "cursor", "portable"] as const;
export type Profile = (typeof PROFILES)[number];

/** A finding before it is placed in a file: the item it is about and a pointer into the item's wire form. */
export interface Hit {
  item: Item;
  pointer: string;
  message: string;
}

export interface Rule {
  id: string;
  profiles: readonly Profile[];
  severity: "error" | "warning";
  /** Where the limit is documented. */
  source: string;
  check: (listing: Listing) => Hit[];
}

const OPENAI_SCHEMAS = "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas";
const OPENAI_FUNCTIONS = "https://platform.openai.com/docs/guides/function-calling";
const GEMINI_DECLARATION = "https://ai.google.dev/api/caching#FunctionDeclaration";
const GEMINI_SCHEMA = "https://ai.google.dev/api/caching#Schema";
const ANTHROPIC_TOOLS = "https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/define-tools";
const CURSOR_LIMITS = "https://easymanage.com/res/docs/tutorials/ai-agent/chapter-3-mcp-advanced";
const MCP_TOOLS = "https://modelcontextprotocol.io/specification/2025-06-18/server/tools";

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** Each tool's input schema, with its pointer in the tool's wire form. */
function eachInput(listing: Listing, fn: (tool: Item, schema: JsonObject) => Hit[]): Hit[] {
  return listing.tools.flatMap((tool) => (isObject(tool.wire.inputSchema) ? fn(tool, tool.wire.inputSchema) : []));
}

/** Every subschema of every tool's input schema. */
function eachSchema(listing: Listing, fn: (tool: Item, schema: JsonObject, pointer: string, depth: number) => Hit[]): Hit[] {
  return eachInput(listing, (tool, input) => {
    const hits: Hit[] = [];
    walk(input, "/inputSchema", ({ schema, pointer, objectDepth }) => hits.push(...fn(tool, schema, pointer, objectDepth)));
    return hits;
  });
}

const toolName = (id: string, profiles: Profile[], pattern: RegExp, said: string, source: string): Rule => ({
  id,
  profiles,
  severity: "error",
  source,
  check: (listing) =>
    listing.tools.flatMap((item) => {
      const name = String(item.wire.name);
      return pattern.test(name) ? [] : [{ item, pointer: "/name", message: `tool name ${JSON.stringify(name)} ${said}` }];
    }),
});

/** Keywords a provider's schema subset lists; annotations that change nothing are allowed everywhere. */
const ANNOTATIONS = ["title", "description", "$schema", "$comment", "examples", "default"];
const OPENAI_KEYWORDS = new Set([
  ...ANNOTATIONS,
  ...["type", "enum", "const", "anyOf", "$ref", "$defs", "definitions", "properties", "required", "additionalProperties", "items"],
  ...["pattern", "format", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "minItems", "maxItems"],
]);
const OPENAI_UNSUPPORTED = new Set(["allOf", "not", "dependentRequired", "dependentSchemas", "if", "then", "else"]);
const OPENAI_FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]);
const GEMINI_KEYWORDS = new Set([
  ...["type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties", "required", "minProperties", "maxProperties"],
  ...["minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering", "default", "items", "minimum", "maximum"],
]);

/** Every `$ref` in a schema that points back at a schema that contains it (directly or through other refs). */
function recursiveRefs(root: JsonObject): string[] {
  const found: string[] = [];
  const target = (ref: string): string | undefined => (ref.startsWith("#") ? decodeURIComponent(ref.slice(1)) : undefined);
  const resolve = (ptr: string): unknown =>
    ptr.split("/").slice(1).reduce<unknown>((node, seg) => (isObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[seg.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined), root);
  // refs reachable from a schema node, through its subschemas and the refs they follow
  const visiting = new Set<string>();
  const seenCycle = new Set<string>();
  const follow = (ptr: string) => {
    if (visiting.has(ptr)) return;
    visiting.add(ptr);
    walk(resolve(ptr) as JsonObject, ptr, ({ schema, pointer }) => {
      const to = typeof schema.$ref === "string" ? target(schema.$ref) : undefined;
      if (to === undefined) return;
      if ([...visiting].some((v) => to === v || v.startsWith(to + "/") || v === to)) {
        if (!seenCycle.has(pointer)) found.push(`${pointer}/$ref`);
        seenCycle.add(pointer);
      } else follow(to);
    });
    visiting.delete(ptr);
  };
  follow("");
  return found;
}

export const RULES: Rule[] = [
  // ——— tool names
  toolName("anthropic-tool-name", ["anthropic"], /^[a-zA-Z0-9_-]{1,64}$/, "does not match ^[a-zA-Z0-9_-]{1,64}$", ANTHROPIC_TOOLS),
  toolName("openai-tool-name", ["openai-strict"], /^[a-zA-Z0-9_-]{1,64}$/, "is not 1 to 64 letters, digits, underscores and dashes", OPENAI_FUNCTIONS),
  toolName("gemini-tool-name", ["gemini"], /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/, "must start with a letter or underscore and hold at most 64 letters, digits, underscores, colons, dots and dashes", GEMINI_DECLARATION),
  toolName("portable-tool-name", ["portable"], /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/, "is not accepted everywhere: start with a letter or underscore, then at most 63 letters, digits, underscores and dashes", ANTHROPIC_TOOLS),
  {
    id: "input-schema-object",
    profiles: ["openai-strict", "gemini", "anthropic", "portable"],
    severity: "error",
    source: MCP_TOOLS,
    check: (listing) =>
      listing.tools.flatMap((item) => {
        const s = item.wire.inputSchema;
        return isObject(s) && s.type === "object" ? [] : [{ item, pointer: "/inputSchema", message: 'the input schema must be {"type": "object", ...}' }];
      }),
  },

  // ——— OpenAI strict mode
  {
    id: "openai-additional-properties",
    profiles: ["openai-strict"],
    severity: "error",
    source: OPENAI_SCHEMAS,
    check: (l) =>
      eachSchema(l, (item, s, pointer) =>
        isObjectSchema(s) && s.additionalProperties !== false ? [{ item, pointer, message: "strict mode needs additionalProperties: false on every object" }] : [],
      ),
  },
  {
    id: "openai-all-required",
    profiles: ["openai-strict"],
    severity: "error",
    source: OPENAI_SCHEMAS,
    check: (l) =>
      eachSchema(l, (item, s, pointer) => {
        if (!isObject(s.properties)) return [];
        const required = new Set(Array.isArray(s.required) ? s.required : []);
        const optional = Object.keys(s.properties).filter((p) => !required.has(p)).sort();
        return optional.map((p) => ({
          item,
          pointer: `${pointer}/properties/${escape(p)}`,
          message: `strict mode needs every property in required (make an optional one nullable: "type": [..., "null"])`,
        }));
      }),
  },
  {
    id: "openai-root-union",
    profiles: ["openai-strict"],
    severity: "error",
    source: OPENAI_SCHEMAS,
    check: (l) => eachInput(l, (item, s) => ("anyOf" in s ? [{ item, pointer: "/inputSchema/anyOf", message: "the root schema must not be anyOf" }] : [])),
  },
  {
    id: "openai-unsupported-keyword",
    profiles: ["openai-strict"],
    severity: "error",
    source: OPENAI_SCHEMAS,
    check: (l) =>
      eachSchema(l, (item, s, pointer) =>
        Object.keys(s)
          .filter((k) => OPENAI_UNSUPPORTED.has(k))
          .map((k) => ({ item, pointer: `${pointer}/${escape(k)}`, message: `${k} is not supported in strict mode` })),
      ),
  },
  {
    id: "openai-unlisted-keyword",
    profiles: ["openai-strict"],
    severity: "warning",
    source: OPENAI_SCHEMAS,
    check: (l) =>
      eachSchema(l, (item, s, pointer) =>
        Object.keys(s)
          .filter((k) => !OPENAI_KEYWORDS.has(k) && !OPENAI_UNSUPPORTED.has(k))
          .map((k) => ({ item, pointer: `${pointer}/${escape(k)}`, message: `${k} is not among the keywords strict mode supports; it may be rejected or not enforced` })),
      ),
  },
  {
    id: "openai-format",
    profiles: ["openai-strict"],
    severity: "warning",
    source: OPENAI_SCHEMAS,
    check: (l) =>
      eachSchema(l, (item, s, pointer) =>
        typeof s.format === "string" && !OPENAI_FORMATS.has(s.format) ? [{ item, pointer: `${pointer}/format`, message: `format ${JSON.stringify(s.format)} is not among the formats strict mode supports` }] : [],
      ),
  },
  {
    id: "openai-nesting",
    profiles: ["openai-strict"],
    severity: "error",
    source: OPENAI_SCHEMAS,
    check: (l) =>
      eachSchema(l, (item, s, pointer, depth) =>
        depth === 11 && isObjectSchema(s) ? [{ item, pointer, message: "more than 10 levels of nested objects" }] : [],
      ),
  },
  {
    id: "openai-size",
    profiles: ["openai-strict"],
    severity: "error",
    source: OPENAI_SCHEMAS,
    check: (l) =>
      eachInput(l, (item, input) => {
        let properties = 0;
        let enums = 0;
        let chars = 0;
        walk(input, "", ({ schema, path }) => {
          if (isObject(schema.properties)) for (const p of Object.keys(schema.properties)) (properties++, (chars += p.length));
          const defs = path.at(-2);
          if (defs === "$defs" || defs === "definitions") chars += path.at(-1)!.length;
          const values = [...(Array.isArray(schema.enum) ? schema.enum : []), ...("const" in schema ? [schema.const] : [])];
          enums += Array.isArray(schema.enum) ? schema.enum.length : 0;
          for (const v of values) if (typeof v === "string") chars += v.length;
        });
        const over = [
          ...(properties > 5000 ? [`${properties} object properties (at most 5000)`] : []),
          ...(enums > 1000 ? [`${enums} enum values (at most 1000)`] : []),
          ...(chars > 120_000 ? [`${chars} characters of property names, definition names, enum and const values (at most 120000)`] : []),
        ];
        return over.map((message) => ({ item, pointer: "/inputSchema", message: `too big for strict mode: ${message}` }));
      }),
  },

  // ——— Gemini function declarations (an OpenAPI 3.0 schema subset)
  {
    id: "gemini-ref",
    profiles: ["gemini"],
    severity: "error",
    source: GEMINI_SCHEMA,
    check: (l) =>
      eachSchema(l, (item, s, pointer) =>
        ["$ref", "$defs", "definitions"].filter((k) => k in s).map((k) => ({ item, pointer: `${pointer}/${k}`, message: `${k}: function declarations take no references; inline the schema` })),
      ),
  },
  {
    id: "gemini-type-array",
    profiles: ["gemini"],
    severity: "error",
    source: GEMINI_SCHEMA,
    check: (l) =>
      eachSchema(l, (item, s, pointer) =>
        Array.isArray(s.type) ? [{ item, pointer: `${pointer}/type`, message: 'type must be one name; for "null" use nullable: true, for several types anyOf' }] : [],
      ),
  },
  {
    id: "gemini-unsupported-keyword",
    profiles: ["gemini"],
    severity: "error",
    source: GEMINI_SCHEMA,
    check: (l) =>
      eachSchema(l, (item, s, pointer) =>
        Object.keys(s)
          .filter((k) => !GEMINI_KEYWORDS.has(k) && !["$ref", "$defs", "definitions"].includes(k))
          .map((k) => ({ item, pointer: `${pointer}/${escape(k)}`, message: `${k} is not a field of Gemini's Schema object` })),
      ),
  },
  {
    id: "gemini-parameter-name",
    profiles: ["gemini"],
    severity: "error",
    source: "https://cloud.google.com/vertex-ai/docs/reference/rest/v1beta1/FunctionDeclaration",
    check: (l) =>
      eachInput(l, (item, input) =>
        Object.keys(isObject(input.properties) ? input.properties : {})
          .filter((p) => !/^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/.test(p))
          .map((p) => ({ item, pointer: `/inputSchema/properties/${escape(p)}`, message: "parameter names start with a letter or underscore and hold at most 64 letters, digits and underscores" })),
      ),
  },

  // ——— Cursor
  {
    id: "cursor-tool-count",
    profiles: ["cursor"],
    severity: "warning",
    source: CURSOR_LIMITS,
    check: (l) =>
      l.tools.length > 40 ? [{ item: l.tools[40]!, pointer: "", message: `${l.tools.length} tools: Cursor uses at most 40 tools across all servers` }] : [],
  },
  {
    id: "cursor-name-length",
    profiles: ["cursor"],
    severity: "warning",
    source: CURSOR_LIMITS,
    check: (l) =>
      l.tools.flatMap((item) => {
        const length = (l.server?.length ?? 0) + String(item.wire.name).length;
        return length > 60 ? [{ item, pointer: "/name", message: `server name + tool name is ${length} characters; Cursor allows at most 60` }] : [];
      }),
  },

  // ——— portable: what every client above accepts
  {
    id: "portable-root-union",
    profiles: ["portable"],
    severity: "error",
    source: OPENAI_SCHEMAS,
    check: (l) =>
      eachInput(l, (item, s) =>
        ["oneOf", "anyOf", "allOf"].filter((k) => k in s).map((k) => ({ item, pointer: `/inputSchema/${k}`, message: `${k} at the top of an input schema is refused by several providers; make the root a plain object` })),
      ),
  },
  {
    id: "portable-nested-defs",
    profiles: ["portable"],
    severity: "error",
    source: GEMINI_SCHEMA,
    check: (l) =>
      eachSchema(l, (item, s, pointer) =>
        pointer !== "/inputSchema" && ("$defs" in s || "definitions" in s)
          ? [{ item, pointer: `${pointer}/${"$defs" in s ? "$defs" : "definitions"}`, message: "definitions belong in one flat $defs at the root of the input schema" }]
          : [],
      ),
  },
  {
    id: "portable-external-ref",
    profiles: ["portable"],
    severity: "error",
    source: MCP_TOOLS,
    check: (l) =>
      eachSchema(l, (item, s, pointer) =>
        typeof s.$ref === "string" && !s.$ref.startsWith("#") ? [{ item, pointer: `${pointer}/$ref`, message: "a reference outside the schema cannot be followed by a client" }] : [],
      ),
  },
  {
    id: "portable-recursion",
    profiles: ["portable"],
    severity: "error",
    source: GEMINI_SCHEMA,
    check: (l) =>
      eachInput(l, (item, input) =>
        recursiveRefs(input).map((p) => ({ item, pointer: `/inputSchema${p}`, message: "recursive schema: clients that inline references cannot expand it" })),
      ),
  },
];
