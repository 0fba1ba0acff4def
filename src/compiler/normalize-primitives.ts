/**
 * normalize, for resources, templates and prompts: the object schema that validates a template's
 * extracted variables or a prompt's arguments (one property per variable or argument, strings unless a
 * schema says otherwise), the completions each one offers, and their type units.
 */
import type { CheckedPrimitives, PromptFile, ResourceFile, TemplateFile } from "./check-primitives.js";
import { jsonDigest } from "./cache.js";
import { requireAppliedDefaults } from "./defaults.js";
import { typeName } from "./names.js";
import { copyJson, type SchemaNode, type TypeUnit } from "./schema-walk.js";

/** Per variable or argument: fixed completion values, or `"handler"`. */
export type Completions = Record<string, string[] | "handler">;

export interface NormalizedTemplate {
  file: TemplateFile;
  schema: SchemaNode;
  typeName: string;
  completions: Completions;
}

export interface NormalizedPrompt {
  file: PromptFile;
  schema: SchemaNode;
  typeName: string;
  completions: Completions;
}

export interface NormalizedPrimitives {
  resources: ResourceFile[];
  templates: NormalizedTemplate[];
  prompts: NormalizedPrompt[];
  typeUnits: TypeUnit[];
}

export function normalizePrimitives(checked: CheckedPrimitives): NormalizedPrimitives {
  const templates = checked.templates.map((file): NormalizedTemplate => {
    const entries = file.names.map((name) => {
      const declared = Object.hasOwn(file.variables, name) ? file.variables[name] : undefined;
      return [name, declared?.schema, declared?.description] as const;
    });
    return {
      file,
      schema: objectSchema(entries, file.names.filter((n) => !file.optional.includes(n))),
      typeName: `${typeName(file.name)}ResourceVariables`,
      completions: completions(entries, file.complete),
    };
  });
  const prompts = checked.prompts.map((file): NormalizedPrompt => {
    const entries = file.arguments.map((a) => [a.name, a.schema, a.description] as const);
    return {
      file,
      schema: objectSchema(entries, file.arguments.filter((a) => a.required).map((a) => a.name)),
      typeName: `${typeName(file.name)}PromptArguments`,
      completions: completions(entries, file.complete),
    };
  });
  return {
    resources: checked.resources,
    templates,
    prompts,
    // The handler gets its values with defaults filled in (the validator applies them): those are present.
    typeUnits: [...templates, ...prompts].map((p) => {
      const schema = copyJson(p.schema);
      requireAppliedDefaults(schema);
      return { name: p.typeName, digest: jsonDigest([p.typeName, schema]), schema: () => schema };
    }),
  };
}

type Entry = readonly [name: string, schema: SchemaNode | boolean | undefined, description: string | undefined];

function objectSchema(entries: readonly Entry[], required: string[]): SchemaNode {
  const properties = Object.fromEntries(
    entries.map(([name, schema, description]) => {
      const base: SchemaNode = schema === undefined ? { type: "string" } : typeof schema === "boolean" ? (schema ? {} : { not: {} }) : schema;
      return [name, description !== undefined && base.description === undefined ? { ...base, description } : base];
    }),
  );
  return { type: "object", properties, ...(required.length && { required }), additionalProperties: false };
}

/** Declared completions win; otherwise a string `enum` completes by itself. */
function completions(entries: readonly Entry[], declared: Completions): Completions {
  // Keys are user names ("constructor", "__proto__"): own properties only, on an object without a prototype.
  const out: Completions = Object.create(null) as Completions;
  for (const [name, schema] of entries) {
    const values = (Object.hasOwn(declared, name) ? declared[name] : undefined) ?? (typeof schema === "object" && Array.isArray(schema.enum) && schema.enum.every((v) => typeof v === "string") ? (schema.enum as string[]) : undefined);
    if (values !== undefined) out[name] = values;
  }
  return out;
}
