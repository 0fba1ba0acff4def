/**
 * `mcpgen import openapi`: one tool per operation of an OpenAPI 3.0 / 3.1 description. The description
 * is read, bundled and validated by @apidevtools/swagger-parser; shared schemas (`components.schemas`)
 * become `defs/<name>.json`; each tool's input merges the path, query and header parameters and the JSON
 * request body, its output is the 2xx JSON response. How to call each operation is kept in `operations`
 * for the handlers (see `openapiHandler`).
 */
import SwaggerParser from "@apidevtools/swagger-parser";
import type { Diagnostic } from "../compiler/diagnostics.js";
import { fileStem, type Imported } from "./output.js";

type Node = Record<string, unknown>;

/** How a handler calls one operation: where each input property goes. */
export interface Operation {
  method: string;
  path: string;
  /** input property → where it goes (`body`: the whole JSON request body; `field`: one property of an object body). */
  params: { property: string; in: "path" | "query" | "header" | "body" | "field"; name: string }[];
  /** Security schemes that apply, as environment variable → where the credential goes. */
  auth: { env: string; in: "header" | "query"; name: string; scheme: "bearer" | "basic" | "apiKey" }[];
  /** Whether the tool has an outputSchema (then the handler returns the parsed JSON). */
  structured: boolean;
}

export interface ImportedApi extends Imported {
  operations: Map<string, Operation>;
  /** Environment variables the handlers read: `<PREFIX>_BASE_URL` and the credentials. */
  env: { name: string; description: string }[];
  defaultBaseUrl: string | undefined;
  prefix: string;
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
const HINTS: Record<string, Node> = {
  get: { readOnlyHint: true, openWorldHint: true },
  head: { readOnlyHint: true, openWorldHint: true },
  options: { readOnlyHint: true, openWorldHint: true },
  delete: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
  put: { readOnlyHint: false, idempotentHint: true, destructiveHint: true, openWorldHint: true },
  post: { readOnlyHint: false, openWorldHint: true },
  patch: { readOnlyHint: false, openWorldHint: true },
  trace: { readOnlyHint: true, openWorldHint: true },
};
const MAX_TOOL_NAME = 64;

/** Keywords of JSON Schema 2020-12 (and draft-07) that mcpgen accepts; anything else is dropped with a note. */
const KEYWORDS = new Set(
  (
    "type enum const title description default examples deprecated readOnly writeOnly format multipleOf maximum minimum " +
    "exclusiveMaximum exclusiveMinimum maxLength minLength pattern maxItems minItems uniqueItems maxContains minContains " +
    "maxProperties minProperties required dependentRequired properties patternProperties additionalProperties " +
    "propertyNames items prefixItems contains allOf anyOf oneOf not if then else dependentSchemas unevaluatedItems " +
    "unevaluatedProperties $ref $defs $comment contentEncoding contentMediaType"
  ).split(" "),
);
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "dependentSchemas"]);
const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
const SCHEMA_ONE = new Set(["additionalProperties", "propertyNames", "items", "contains", "not", "if", "then", "else", "unevaluatedItems", "unevaluatedProperties"]);
/** Regular-expression features RE2 (mcpgen's pattern engine) cannot run: lookaround and backreferences. */
const BACKTRACKING = /\(\?<?[=!]|\\[1-9]|\\k</;

/** Reads, bundles and validates `spec` (a file or an http(s) URL). Problems are `spec#/pointer: message`. */
export async function readOpenApi(spec: string): Promise<{ api: Node | undefined; diagnostics: Diagnostic[] }> {
  try {
    // validate() bundles (external files and URLs become internal refs) and checks against the OpenAPI schema.
    const bundled = (await SwaggerParser.bundle(spec)) as unknown as Node;
    await SwaggerParser.validate(structuredClone(bundled) as never);
    const version = String(bundled.openapi ?? bundled.swagger ?? "");
    if (!/^3\.[01]\./.test(version)) return { api: undefined, diagnostics: [{ file: spec, pointer: "/openapi", message: `OpenAPI ${version || "(no version)"} is not supported: use 3.0 or 3.1` }] };
    return { api: bundled, diagnostics: [] };
  } catch (error) {
    const e = error as Error & { details?: { instancePath?: string; path?: (string | number)[]; message?: string }[] };
    if (e.details?.length)
      return {
        api: undefined,
        diagnostics: e.details.slice(0, 50).map((d) => ({ file: spec, pointer: d.instancePath ?? (d.path ? "/" + d.path.join("/") : ""), message: d.message ?? "invalid" })),
      };
    return { api: undefined, diagnostics: [{ file: spec, pointer: "", message: e.message.split("\n")[0] ?? String(error) }] };
  }
}

/** An environment-variable prefix from the API's title: `GitHub v3 REST API` → `GITHUB_V3_REST_API`. */
export function envPrefix(title: string): string {
  const prefix = title.toUpperCase().replace(/[^A-Z0-9]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 40);
  return /^[A-Z]/.test(prefix) ? prefix : `API_${prefix}`.replace(/_+$/, "");
}

/** A tool name within MCP's rules (A-Z a-z 0-9 _ - ., at most 64 characters), unique among `taken`. */
export function toolName(operationId: string | undefined, method: string, path: string, taken: Set<string>): string {
  // Without an operationId: the method and the path's segments, `get_pets_petId` for GET /pets/{petId}.
  const raw = operationId ?? `${method}_${path.replace(/[^A-Za-z0-9_.-]+/g, "_")}`.replace(/_+/g, "_");
  let base = raw.replace(/[^A-Za-z0-9_.-]+/g, "_").replace(/^_+|_+$/g, "") || method;
  base = base.slice(0, MAX_TOOL_NAME);
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base.slice(0, MAX_TOOL_NAME - String(i).length - 1)}_${i}`;
  taken.add(name);
  return name;
}

export interface OpenApiOptions {
  /** Only the operations with at least one of these tags (all operations when absent or empty). */
  tags?: string[] | undefined;
  /** The environment-variable prefix; by default made from `info.title` (see `envPrefix`). */
  envPrefix?: string | undefined;
}

export function toSchemas(api: Node, spec: string, options: OpenApiOptions = {}): ImportedApi {
  const files = new Map<string, unknown>();
  const notes: string[] = [];
  const operations = new Map<string, Operation>();
  const components = (api.components ?? {}) as Node;
  const info = (api.info ?? {}) as Node;
  const is30 = String(api.openapi).startsWith("3.0");
  const prefix = options.envPrefix ?? envPrefix(String(info.title ?? "API"));
  const tags = options.tags?.length ? new Set(options.tags) : undefined;

  // Shared schemas: one defs file each; refs to them are rewritten relative to the file they appear in.
  const schemas = (components.schemas ?? {}) as Record<string, unknown>;
  const defStems = new Map<string, string>();
  const taken = new Set<string>();
  for (const name of Object.keys(schemas).sort()) defStems.set(name, fileStem(name, taken));
  const refTo = (fromDefs: boolean) => (ref: string, at: string): string | undefined => {
    const m = /^#\/components\/schemas\/([^/]+)(\/.*)?$/.exec(ref);
    if (m) {
      const name = decodeURIComponent(m[1]!.replace(/~1/g, "/").replace(/~0/g, "~"));
      const stem = defStems.get(name);
      if (stem) return `${fromDefs ? "./" : "../defs/"}${stem}.json${m[2] ? "#" + m[2] : ""}`;
    }
    notes.push(`${spec}#${at}: $ref ${JSON.stringify(ref)} does not point at a schema in components.schemas; replaced by {}`);
    return undefined;
  };
  const note = (at: string, message: string) => notes.push(`${spec}#${at}: ${message}`);
  const inDefs: Convert = { ref: refTo(true), is30, note };
  const inTools: Convert = { ref: refTo(false), is30, note };
  const defsByStem = new Map<string, unknown>();
  for (const [name, stem] of defStems) {
    const def = convert(schemas[name], `/components/schemas/${pointerPart(name)}`, inDefs);
    defsByStem.set(stem, def);
    files.set(`defs/${stem}.json`, def);
  }

  // Parameters, request bodies and responses may be references into components.
  const resolve = (node: unknown): Node => {
    let current = node as Node;
    for (let i = 0; i < 20 && current && typeof current.$ref === "string"; i++) {
      const parts = (current.$ref as string).replace(/^#\//, "").split("/").map((p) => decodeURIComponent(p.replace(/~1/g, "/").replace(/~0/g, "~")));
      current = parts.reduce<unknown>((n, p) => (n as Node | undefined)?.[p], api) as Node;
    }
    return current ?? {};
  };

  // Credentials: one environment variable per security scheme mcpgen can fill in.
  const env: { name: string; description: string }[] = [{ name: `${prefix}_BASE_URL`, description: "Base URL of the API" }];
  const schemes = new Map<string, Operation["auth"][number]>();
  for (const [key, raw] of Object.entries((components.securitySchemes ?? {}) as Record<string, unknown>)) {
    const scheme = resolve(raw);
    const envName = `${prefix}_${key.toUpperCase().replace(/[^A-Z0-9]+/g, "_")}`;
    if (scheme.type === "http" && String(scheme.scheme).toLowerCase() === "bearer") schemes.set(key, { env: envName, in: "header", name: "Authorization", scheme: "bearer" });
    else if (scheme.type === "http" && String(scheme.scheme).toLowerCase() === "basic") schemes.set(key, { env: envName, in: "header", name: "Authorization", scheme: "basic" });
    else if (scheme.type === "apiKey" && (scheme.in === "header" || scheme.in === "query")) schemes.set(key, { env: envName, in: scheme.in, name: String(scheme.name), scheme: "apiKey" });
    else {
      notes.push(`${spec}#/components/securitySchemes/${key}: ${String(scheme.type)}${scheme.in ? ` in ${String(scheme.in)}` : ""} is not filled in by the generated handlers (bearer, basic and apiKey in a header or the query are)`);
      continue;
    }
    env.push({ name: envName, description: `${key}: ${schemes.get(key)!.scheme === "apiKey" ? `API key (${String(scheme.in)} ${String(scheme.name)})` : `${schemes.get(key)!.scheme} credential`}` });
  }
  const globalSecurity = api.security as Node[] | undefined;

  const hints: Record<string, Node> = {};
  const names = new Set<string>();
  const stems = new Set<string>();
  const paths = (api.paths ?? {}) as Record<string, Node>;
  for (const pathKey of Object.keys(paths)) {
    const item = resolve(paths[pathKey]);
    for (const method of METHODS) {
      const op = item[method] as Node | undefined;
      if (!op) continue;
      if (tags && !((op.tags ?? []) as unknown[]).some((tag) => tags.has(String(tag)))) continue;
      const at = `/paths/${pointerPart(pathKey)}/${method}`;
      const name = toolName(op.operationId as string | undefined, method, pathKey, names);
      const properties: Node = {};
      const required: string[] = [];
      const params: Operation["params"] = [];
      const all = [...((item.parameters ?? []) as unknown[]), ...((op.parameters ?? []) as unknown[])].map(resolve);
      // An operation's parameter overrides the path item's one of the same name and place.
      const byKey = new Map<string, Node>();
      for (const p of all) byKey.set(`${String(p.in)}:${String(p.name)}`, p);
      const used = new Set<string>();
      const place = (wanted: string, where: string) => {
        let property = used.has(wanted) ? `${where}_${wanted}` : wanted;
        for (let i = 2; used.has(property); i++) property = `${where}_${wanted}_${i}`;
        used.add(property);
        return property;
      };
      const list = [...byKey.values()];
      // Names are decided in a fixed order (path, query, header, then the body) so a clash renames the later one.
      for (const where of ["path", "query", "header"] as const) {
        for (const p of list.filter((p) => p.in === where)) {
          const property = place(String(p.name), where);
          const schema = p.schema !== undefined ? convert(p.schema, `${at}/parameters`, inTools) : p.content ? {} : { type: "string" };
          const described = typeof p.description === "string" && typeof schema === "object" && schema && !("description" in schema) ? { ...(schema as Node), description: p.description } : schema;
          properties[property] = described;
          if (p.required || where === "path") required.push(property);
          params.push({ property, in: where, name: String(p.name) });
        }
      }
      for (const p of list.filter((p) => p.in === "cookie")) notes.push(`${spec}#${at}: cookie parameter "${String(p.name)}" is not sent by the generated handler`);
      if (op.requestBody) {
        const body = resolve(op.requestBody);
        const content = (body.content ?? {}) as Node;
        const json = jsonMedia(content) as Node | undefined;
        if (json) {
          const schema = convert(json.schema ?? {}, `${at}/requestBody`, inTools) as Node;
          // An object body (inline, or a shared object schema) has its properties merged into the input, unless
          // one of them clashes with a parameter; any other body goes whole under `body`.
          const fields = objectFields(json.schema, schemas, inTools, `${at}/requestBody`);
          if (fields && Object.keys(fields.properties).every((field) => !used.has(field))) {
            for (const [field, fieldSchema] of Object.entries(fields.properties)) {
              properties[place(field, "body")] = fieldSchema;
              if (body.required && fields.required.includes(field)) required.push(field);
              params.push({ property: field, in: "field", name: field });
            }
          } else {
            const property = place("body", "request");
            properties[property] = typeof body.description === "string" && !("description" in schema) ? { ...schema, description: body.description } : schema;
            if (body.required) required.push(property);
            params.push({ property, in: "body", name: "body" });
          }
        }
        for (const type of Object.keys(content).filter((type) => content[type] !== json))
          notes.push(`${spec}#${at}/requestBody/content/${pointerPart(type)}: only JSON request bodies are sent by the generated handler; ${type} is left out`);
      }
      if (op.callbacks) notes.push(`${spec}#${at}/callbacks: callbacks are not imported (a tool answers its call; it does not receive requests)`);
      const tool: Node = { name };
      if (typeof op.summary === "string") tool.title = op.summary;
      const description = [op.summary, op.description].filter((s) => typeof s === "string" && s).join("\n\n");
      if (description) tool.description = description;
      tool.inputSchema = { type: "object", properties, ...(required.length && { required }) };
      let structured = false;
      const responses = (op.responses ?? {}) as Node;
      const ok = Object.keys(responses).sort().find((code) => /^2(\d\d|XX)$/i.test(code));
      if (ok) {
        const json = jsonMedia(resolve(responses[ok]).content as Node | undefined) as Node | undefined;
        if (json?.schema) {
          const out = convert(json.schema, `${at}/responses/${ok}`, inTools);
          if (isObjectSchema(out, defsByStem)) {
            tool.outputSchema = out;
            structured = true;
          }
        }
      }
      if (op.deprecated) tool._meta = { "x-openapi/deprecated": true };
      hints[name] = HINTS[method]!;
      const security = (op.security as Node[] | undefined) ?? globalSecurity ?? [];
      const auth = [...new Set(security.flatMap((req) => Object.keys(req)))].flatMap((key) => (schemes.has(key) ? [schemes.get(key)!] : []));
      operations.set(name, { method: method.toUpperCase(), path: pathKey, params, auth, structured });
      files.set(`tools/${fileStem(name, stems)}.json`, tool);
    }
  }
  for (const hook of Object.keys((api.webhooks ?? {}) as Node))
    notes.push(`${spec}#/webhooks/${pointerPart(hook)}: webhooks are not imported (they are requests the API sends, not operations to call)`);
  files.set("annotations.json", { tools: hints });
  const servers = (api.servers ?? []) as Node[];
  const defaultBaseUrl = typeof servers[0]?.url === "string" && /^https?:\/\//.test(servers[0].url) ? servers[0].url : undefined;
  files.set("server.json", {
    name: String(info.title ?? "api").toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "") || "api",
    version: /^\d+\.\d+\.\d+/.test(String(info.version)) ? String(info.version) : "0.1.0",
    ...(typeof info.title === "string" && { title: info.title }),
    ...(typeof info.description === "string" && { description: info.description.slice(0, 1000) }),
  });
  return {
    files,
    notes,
    operations,
    env,
    defaultBaseUrl,
    prefix,
    counts: { tools: operations.size, resources: 0, templates: 0, prompts: 0, defs: defStems.size },
  };
}

const hasRef = (value: unknown): boolean =>
  value !== null && typeof value === "object" && (Array.isArray(value) ? value.some(hasRef) : "$ref" in value || Object.values(value).some(hasRef));

const pointerPart = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

/**
 * The properties of an object request body, when its schema (inline or a shared schema) is a plain object
 * schema with properties: no composition, no `additionalProperties` beyond `false`/absent.
 */
function objectFields(raw: unknown, schemas: Record<string, unknown>, c: Convert, at: string): { properties: Node; required: string[] } | undefined {
  let node = raw as Node | undefined;
  const m = typeof node?.$ref === "string" ? /^#\/components\/schemas\/([^/]+)$/.exec(node.$ref) : null;
  if (m) node = schemas[decodeURIComponent(m[1]!.replace(/~1/g, "/").replace(/~0/g, "~"))] as Node | undefined;
  if (!node || typeof node !== "object" || node.type !== "object" || !node.properties || node.nullable) return undefined;
  if (["allOf", "anyOf", "oneOf", "not", "if", "patternProperties", "$ref"].some((k) => k in node!)) return undefined;
  if (node.additionalProperties !== undefined && node.additionalProperties !== false) return undefined;
  const converted = convert(node, at, { ...c, note: () => {} }) as Node;
  return { properties: (converted.properties ?? {}) as Node, required: (converted.required ?? []) as string[] };
}

function jsonMedia(content: Node | undefined): unknown {
  if (!content) return undefined;
  const key = Object.keys(content).find((type) => /^application\/(.+\+)?json(;.*)?$/i.test(type)) ?? Object.keys(content).find((type) => type === "*/*");
  return key ? content[key] : undefined;
}

/** An output schema must be an object schema; a `$ref` to a shared schema counts when that one is. */
function isObjectSchema(schema: unknown, defs: Map<string, unknown>): boolean {
  const node = schema as Node;
  if (!node || typeof node !== "object") return false;
  if (node.type === "object") return true;
  const m = typeof node.$ref === "string" ? /^\.\.\/defs\/(.+)\.json$/.exec(node.$ref) : null;
  return m !== null && (defs.get(m[1]!) as Node | undefined)?.type === "object";
}

/** What `convert` needs: where a `$ref` to a shared schema points from here, the version, and where notes go. */
interface Convert {
  ref: (ref: string, at: string) => string | undefined;
  is30: boolean;
  note: (at: string, message: string) => void;
}

/**
 * An OpenAPI schema as JSON Schema in mcpgen's dialect: 3.0's `nullable` becomes a `"null"` type, its
 * boolean `exclusiveMinimum`/`exclusiveMaximum` numbers, `example` goes to `examples`; OpenAPI-only keywords
 * (`discriminator`, `xml`, `externalDocs`) and unknown ones are dropped, as are patterns RE2 cannot run.
 */
function convert(schema: unknown, at: string, c: Convert): unknown {
  if (typeof schema === "boolean") return schema;
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) return {};
  const node = schema as Node;
  const out: Node = {};
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith("x-")) continue;
    if (key === "$ref") {
      const target = c.ref(String(value), at);
      if (target) out.$ref = target;
    } else if (SCHEMA_MAPS.has(key) && value && typeof value === "object") {
      out[key] = Object.fromEntries(Object.entries(value as Node).map(([k, v]) => [k, convert(v, `${at}/${key}/${k}`, c)]));
    } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
      out[key] = value.map((v, i) => convert(v, `${at}/${key}/${i}`, c));
    } else if (SCHEMA_ONE.has(key)) {
      out[key] = Array.isArray(value) ? { prefixItems: value.map((v, i) => convert(v, `${at}/${key}/${i}`, c)) } : convert(value, `${at}/${key}`, c);
    } else if (key === "example") {
      // An example that holds a `$ref` (a reference to `components/examples`) is left out: the build resolves every `$ref`.
      if (!("examples" in node) && !hasRef(value)) out.examples = [value];
    } else if (key === "examples") {
      if (Array.isArray(value) && value.some((v) => !hasRef(v))) out.examples = value.filter((v) => !hasRef(v));
    } else if (key === "pattern") {
      if (typeof value === "string" && !BACKTRACKING.test(value)) out.pattern = value;
      else c.note(`${at}/pattern`, `pattern ${JSON.stringify(value)} needs backtracking and was left out (mcpgen checks patterns in linear time)`);
    } else if ((key === "exclusiveMinimum" || key === "exclusiveMaximum") && typeof value === "boolean") {
      const bound = key === "exclusiveMinimum" ? "minimum" : "maximum";
      if (value && typeof node[bound] === "number") out[key] = node[bound];
    } else if (key === "nullable") {
      continue;
    } else if (key === "required") {
      if (Array.isArray(value) && value.length) out.required = [...new Set(value)];
    } else if (key === "$schema" || key === "$id" || key === "definitions") {
      continue;
    } else if (KEYWORDS.has(key)) {
      out[key] = value;
    }
  }
  if (c.is30) {
    if ((out.exclusiveMinimum !== undefined) && typeof out.minimum === "number" && out.exclusiveMinimum === out.minimum) delete out.minimum;
    if ((out.exclusiveMaximum !== undefined) && typeof out.maximum === "number" && out.exclusiveMaximum === out.maximum) delete out.maximum;
  }
  if (c.is30 && node.nullable === true) {
    if (typeof out.type === "string") out.type = [out.type, "null"];
    else if (out.$ref || out.allOf || out.anyOf || out.oneOf) return { anyOf: [out, { type: "null" }] };
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  return out;
}
