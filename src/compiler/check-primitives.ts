/**
 * check, for resources, resource templates and prompts: meta-schemas, names and URIs, RFC 6570 template
 * syntax (parsed with @hyperjump/uri-template), variable and argument schemas, and completions that must
 * name a variable or argument that exists.
 */
import { parse as parseTemplate } from "@hyperjump/uri-template";
import path from "node:path";
import type { SourceDoc } from "./load.js";
import type { Dialect } from "./ajv.js";
import { checkSchema, NAME, type Context } from "./check-schema.js";
import { validateFile } from "./meta-validators.js";
import { ajvDiagnostics, pointerJoin } from "./diagnostics.js";
import { walkSchema, type SchemaNode } from "./schema-walk.js";

type Common = { doc: SourceDoc; name: string; title?: string; description?: string; icons?: Record<string, unknown>[]; _meta?: Record<string, unknown> };

export interface ResourceFile extends Common {
  uri: string;
  mimeType?: string;
  size?: number;
  annotations?: Record<string, unknown>;
  text?: string;
  blob?: string;
}

export interface TemplateFile extends Common {
  uriTemplate: string;
  mimeType?: string;
  annotations?: Record<string, unknown>;
  /** Variable names in template order. */
  names: string[];
  /** Variables of `{?…}` / `{&…}` expressions, which a URI may leave out. */
  optional: string[];
  variables: Record<string, { description?: string; schema?: SchemaNode | boolean }>;
  complete: Record<string, "handler" | string[]>;
  dialect: Dialect;
}

export interface PromptFile extends Common {
  arguments: { name: string; title?: string; description?: string; required?: boolean; schema?: SchemaNode | boolean }[];
  complete: Record<string, "handler" | string[]>;
  dialect: Dialect;
}

export interface CheckedPrimitives {
  resources: ResourceFile[];
  templates: TemplateFile[];
  prompts: PromptFile[];
}

const { resource: validateResource, template: validateTemplate, prompt: validatePrompt } = validateFile;

export function checkPrimitives(resourceDocs: SourceDoc[], promptDocs: SourceDoc[], ctx: Context): CheckedPrimitives {
  const resources: ResourceFile[] = [];
  const templates: TemplateFile[] = [];
  for (const doc of resourceDocs) {
    const isTemplate = doc.value !== null && typeof doc.value === "object" && Object.hasOwn(doc.value, "uriTemplate");
    const validate = isTemplate ? validateTemplate : validateResource;
    if (!validate(doc.value)) {
      ctx.diagnostics.push(...ajvDiagnostics(validate.errors, doc.file, ""));
      continue;
    }
    const value = { ...(doc.value as Record<string, unknown>), doc, name: nameOf(doc) };
    if (isTemplate) {
      const template = checkTemplate(value as Omit<TemplateFile, "names" | "optional" | "dialect">, ctx);
      if (template) templates.push(template);
    } else {
      const resource = value as ResourceFile;
      if (checkResource(resource, ctx)) resources.push(resource);
    }
  }
  const prompts = promptDocs.flatMap((doc) => {
    if (!validatePrompt(doc.value)) {
      ctx.diagnostics.push(...ajvDiagnostics(validatePrompt.errors, doc.file, ""));
      return [];
    }
    const prompt = checkPrompt({ complete: {}, arguments: [], ...(doc.value as object), doc, name: nameOf(doc) } as Omit<PromptFile, "dialect">, ctx);
    return prompt ? [prompt] : [];
  });

  unique([...resources, ...templates], "resource", ctx);
  unique(prompts, "prompt", ctx);
  const byUri = new Map<string, ResourceFile>();
  for (const r of resources) {
    const first = byUri.get(r.uri);
    if (first) ctx.report(r.doc, "/uri", `duplicate resource URI "${r.uri}" (also in ${first.doc.file})`);
    else byUri.set(r.uri, r);
  }
  const byTemplate = new Map<string, TemplateFile>();
  for (const t of templates) {
    const first = byTemplate.get(t.uriTemplate);
    if (first) ctx.report(t.doc, "/uriTemplate", `duplicate URI template "${t.uriTemplate}" (also in ${first.doc.file})`);
    else byTemplate.set(t.uriTemplate, t);
  }
  return { resources, templates, prompts };
}

function nameOf(doc: SourceDoc): string {
  const name = (doc.value as { name?: unknown }).name;
  return typeof name === "string" ? name : path.posix.basename(doc.rel).replace(/\.(json|ya?ml)$/i, "");
}

function checkName(item: Common, kind: string, ctx: Context): boolean {
  if (NAME.test(item.name)) return true;
  ctx.report(item.doc, (item.doc.value as { name?: unknown }).name === undefined ? "" : "/name", `invalid ${kind} name ${JSON.stringify(item.name)}: use 1-128 characters of A-Z a-z 0-9 _ . -`);
  return false;
}

function unique(items: Common[], kind: string, ctx: Context): void {
  const seen = new Map<string, Common>();
  for (const item of items) {
    const key = item.name.toLowerCase();
    const first = seen.get(key);
    if (first)
      ctx.report(item.doc, "/name", first.name === item.name
        ? `duplicate ${kind} name "${item.name}" (also in ${first.doc.file})`
        : `${kind} "${item.name}" and ${kind} "${first.name}" (${first.doc.file}) would share a handler file on case-insensitive file systems`);
    else seen.set(key, item);
  }
}

function checkResource(r: ResourceFile, ctx: Context): boolean {
  let ok = checkName(r, "resource", ctx);
  if (!URL.canParse(r.uri)) {
    ctx.report(r.doc, "/uri", `not an absolute URI: ${JSON.stringify(r.uri)}`);
    ok = false;
  }
  if (r.text !== undefined && r.blob !== undefined) {
    ctx.report(r.doc, "/blob", 'a resource has either "text" or "blob" contents, not both');
    ok = false;
  }
  return ok;
}

function checkTemplate(t: Omit<TemplateFile, "names" | "optional" | "dialect">, ctx: Context): TemplateFile | undefined {
  let ok = checkName(t, "resource", ctx);
  let names: string[] = [];
  const optional: string[] = [];
  try {
    for (const part of parseTemplate(t.uriTemplate)) {
      if (!("variables" in part)) continue;
      for (const v of part.variables) {
        if (v.explode) {
          ctx.report(t.doc, "/uriTemplate", `variable "${v.name}" is exploded ({${v.name}*}): resource templates match single values only`);
          ok = false;
        }
        if (!names.includes(v.name)) names.push(v.name);
        if (part.type === "?" || part.type === "&") optional.push(v.name);
      }
    }
    if (names.length === 0) {
      ctx.report(t.doc, "/uriTemplate", 'a URI template needs at least one {variable}; use "uri" for a fixed resource');
      ok = false;
    }
  } catch (error) {
    ctx.report(t.doc, "/uriTemplate", `invalid URI template: ${(error as Error).message.split("\n")[0]}`);
    return undefined;
  }
  const variables = (t.variables ?? {}) as TemplateFile["variables"];
  for (const name of Object.keys(variables))
    if (!names.includes(name)) {
      ctx.report(t.doc, pointerJoin("/variables", name), `no variable "${name}" in the URI template (it has ${names.join(", ") || "none"})`);
      ok = false;
    }
  const complete = (t.complete ?? {}) as TemplateFile["complete"];
  ok = checkComplete(complete, names, "variable", t.doc, ctx) && ok;
  let dialect: Dialect | undefined = "2020-12";
  for (const [name, v] of Object.entries(variables))
    if (v.schema !== undefined) dialect = checkArgumentSchema(v.schema, t.doc, pointerJoin("/variables", name, "schema"), ctx) && dialect;
  return ok && dialect ? { ...t, names, optional, variables, complete, dialect } : undefined;
}

function checkPrompt(p: Omit<PromptFile, "dialect">, ctx: Context): PromptFile | undefined {
  let ok = checkName(p, "prompt", ctx);
  const seen = new Set<string>();
  p.arguments.forEach((a, i) => {
    if (seen.has(a.name)) {
      ctx.report(p.doc, pointerJoin("/arguments", i, "name"), `duplicate argument "${a.name}"`);
      ok = false;
    }
    seen.add(a.name);
  });
  ok = checkComplete(p.complete, [...seen], "argument", p.doc, ctx) && ok;
  let dialect: Dialect | undefined = "2020-12";
  p.arguments.forEach((a, i) => {
    if (a.schema !== undefined) dialect = checkArgumentSchema(a.schema, p.doc, pointerJoin("/arguments", i, "schema"), ctx) && dialect;
  });
  return ok && dialect ? { ...p, dialect } : undefined;
}

function checkComplete(complete: Record<string, unknown>, names: string[], kind: string, doc: SourceDoc, ctx: Context): boolean {
  let ok = true;
  for (const name of Object.keys(complete))
    if (!names.includes(name)) {
      ctx.report(doc, pointerJoin("/complete", name), `completion for "${name}", but there is no ${kind} "${name}" (known: ${names.join(", ") || "none"})`);
      ok = false;
    }
  return ok;
}

/** Variable and argument schemas describe one value and are self-contained: no `$ref`. */
function checkArgumentSchema(schema: SchemaNode | boolean, doc: SourceDoc, at: string, ctx: Context): Dialect | undefined {
  const before = ctx.diagnostics.length;
  const dialect = checkSchema(schema, doc, at, undefined, ctx);
  walkSchema(schema, at, (node, pointer) => {
    if (node.$ref !== undefined) ctx.report(doc, pointerJoin(pointer, "$ref"), "$ref is not supported in variable and argument schemas");
  });
  return ctx.diagnostics.length === before ? dialect : undefined;
}
