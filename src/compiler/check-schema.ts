/** The check of one JSON Schema, shared by every kind of input file that embeds schemas. */
import type { SourceDoc } from "./load.js";
import { ajvDiagnostics, DIALECT_URIS, KNOWN_FORMATS, type Dialect } from "./ajv.js";
import { pointerJoin, type Diagnostic } from "./diagnostics.js";
import { validateSchemaOf } from "./meta-validators.js";
import { KNOWN_KEYWORDS, walkSchema } from "./schema-walk.js";

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
  walkSchema(schema, base, (node, pointer) => {
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
    if (pointer !== base && node.$schema !== undefined)
      ctx.report(doc, pointerJoin(pointer, "$schema"), "$schema is only allowed at the root of a schema");
  });
  return ctx.diagnostics.length === before ? dialect : undefined;
}

