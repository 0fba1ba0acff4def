/** The check of one JSON Schema, shared by every kind of input file that embeds schemas. */
import type { SourceDoc } from "./load.js";
import { DIALECT_URIS, KNOWN_FORMATS, type Dialect } from "./ajv.js";
import { ajvDiagnostics, pointerJoin, type Diagnostic } from "./diagnostics.js";
import { validateSchemaOf } from "./meta-validators.js";
import { KNOWN_KEYWORDS, walkSchema, type SchemaNode } from "./schema-walk.js";
import { unsupportedPattern } from "@mcpgen/runtime/regexp";

/** Names of tools, resources and prompts: they become file names and identifiers. */
export const NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export interface Context {
  /** Errors. */
  diagnostics: Diagnostic[];
  report(doc: SourceDoc, pointer: string, message: string): void;
  /** Warnings: kept apart, so that a stage's "no new diagnostics" means no new errors. */
  warnings: Diagnostic[];
  warn(doc: SourceDoc, pointer: string, message: string): void;
}

/** The dialect of a schema that `checkSchema` accepted, inside a schema of dialect `parent`. */
export function dialectOf(schema: unknown, parent: Dialect | undefined): Dialect {
  const declared = schema !== null && typeof schema === "object" ? (schema as { $schema?: unknown }).$schema : undefined;
  return (typeof declared === "string" ? DIALECT_URIS[declared] : undefined) ?? parent ?? "2020-12";
}

/**
 * Checks one JSON Schema: dialect, validity against the dialect's meta-schema, known keywords and formats,
 * supported `$id`/anchors. Returns the dialect, or undefined when the schema is unusable.
 */
export function checkSchema(schema: unknown, doc: SourceDoc, base: string, parent: Dialect | undefined, ctx: Context): Dialect | undefined {
  if (typeof schema === "boolean") return parent ?? "2020-12";
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) {
    ctx.report(doc, base, "must be a JSON Schema object");
    return undefined;
  }
  const declared = (schema as { $schema?: unknown }).$schema;
  let dialect: Dialect = parent ?? "2020-12";
  if (declared !== undefined) {
    const known = typeof declared === "string" ? DIALECT_URIS[declared] : undefined;
    if (!known) {
      ctx.report(doc, pointerJoin(base, "$schema"), `unsupported dialect ${JSON.stringify(declared)}: use JSON Schema 2020-12 (the default) or draft-07`);
      return undefined;
    }
    dialect = known;
  }
  const before = ctx.diagnostics.length;
  const validate = validateSchemaOf[dialect];
  if (!validate(schema)) ctx.diagnostics.push(...ajvDiagnostics(validate.errors, doc.file, base));
  const headers: [node: SchemaNode, pointer: string][] = [];
  walkSchema(schema, base, (node, pointer) => {
    if (Object.hasOwn(node, HEADER)) headers.push([node, pointer]);
    for (const keyword of Object.keys(node)) {
      if (!keyword.startsWith("x-") && !KNOWN_KEYWORDS.has(keyword))
        ctx.report(doc, pointerJoin(pointer, keyword), `unknown keyword "${keyword}" (extension keywords start with "x-")`);
    }
    // In JSON Schema an unknown format is an annotation: accepted, not validated, worth a word.
    if (typeof node.format === "string" && !KNOWN_FORMATS.has(node.format))
      ctx.warn(doc, pointerJoin(pointer, "format"), `unknown format "${node.format}": kept as an annotation, not validated`);
    if (node.$id !== undefined && !(pointer === "" && doc.rel.startsWith("defs/")))
      ctx.report(doc, pointerJoin(pointer, "$id"), "$id is only supported at the root of a defs/ file ($ref resolves against file paths)");
    for (const keyword of ["$dynamicRef", "$dynamicAnchor"])
      if (node[keyword] !== undefined) ctx.report(doc, pointerJoin(pointer, keyword), `${keyword} is not supported: use "$ref" with a JSON pointer or an $anchor`);
    if (typeof node.pattern === "string") checkPattern(node.pattern, doc, pointerJoin(pointer, "pattern"), ctx);
    const patternProperties = node.patternProperties;
    if (patternProperties !== null && typeof patternProperties === "object" && !Array.isArray(patternProperties))
      for (const key of Object.keys(patternProperties)) checkPattern(key, doc, pointerJoin(pointer, "patternProperties", key), ctx);
    if (pointer !== base && node.$schema !== undefined)
      ctx.report(doc, pointerJoin(pointer, "$schema"), "$schema is only allowed at the root of a schema");
  });
  checkHeaders(headers, doc, base, ctx);
  return ctx.diagnostics.length === before ? dialect : undefined;
}


/**
 * A pattern must be an ECMA-262 regular expression (with the `u` flag, as JSON Schema says) that the
 * validators' linear-time engine can run (src/runtime/regexp.ts): no backreferences, no lookaround.
 */
function checkPattern(pattern: string, doc: SourceDoc, pointer: string, ctx: Context): void {
  try {
    new RegExp(pattern, "u");
  } catch (error) {
    ctx.report(doc, pointer, `invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}`);
    return;
  }
  const why = unsupportedPattern(pattern);
  if (why !== undefined) ctx.report(doc, pointer, `pattern ${JSON.stringify(pattern)} cannot be matched in linear time: ${why}`);
}

/** The 2026-07-28 extension that mirrors a tool argument into an `Mcp-Param-<name>` HTTP header. */
const HEADER = "x-mcp-header";
/** RFC 9110 `token` (section 5.1): what a header field name may be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Where the declaration may be: a property reached from the inputSchema's root through `properties` alone. */
const HEADER_SITE = /^\/inputSchema(\/properties\/[^/]+)+$/;

/**
 * The spec's constraints on `x-mcp-header`, each at its place. A client on 2026-07-28 drops a tool that
 * breaks any of them from `tools/list`, so they are errors here rather than surprises there.
 */
function checkHeaders(headers: [node: SchemaNode, pointer: string][], doc: SourceDoc, base: string, ctx: Context): void {
  const seen = new Map<string, string>(); // lower-cased name → pointer of its first declaration
  for (const [node, pointer] of headers) {
    const at = pointerJoin(pointer, HEADER);
    const name = node[HEADER];
    if (base !== "/inputSchema" || !doc.rel.startsWith("tools/")) {
      ctx.report(doc, at, `${HEADER} only applies to properties of a tool's inputSchema`);
      continue;
    }
    if (!HEADER_SITE.test(pointer)) {
      ctx.report(doc, at, `${HEADER} must be on a property reached from the root through "properties" alone (not at the root, nor under items, anyOf/oneOf/allOf/not, if/then/else, additionalProperties or $defs)`);
      continue;
    }
    if (typeof name !== "string" || name === "") {
      ctx.report(doc, at, `${HEADER} must be a non-empty string: the NAME of the header Mcp-Param-NAME`);
      continue;
    }
    if (!TOKEN.test(name)) {
      ctx.report(doc, at, `${HEADER} ${JSON.stringify(name)} is not a valid header name: use letters, digits and ! # $ % & ' * + - . ^ _ \` | ~ (no spaces, control characters or delimiters)`);
      continue;
    }
    if (!["string", "integer", "boolean"].includes(node.type as string))
      ctx.report(doc, at, `${HEADER} is only allowed on a property of type "string", "integer" or "boolean" (its type is ${node.type === undefined ? "not declared" : JSON.stringify(node.type)})`);
    const first = seen.get(name.toLowerCase());
    if (first !== undefined) ctx.report(doc, at, `${HEADER} ${JSON.stringify(name)} is also declared at ${first} (header names are case-insensitive)`);
    else seen.set(name.toLowerCase(), pointer);
  }
}

