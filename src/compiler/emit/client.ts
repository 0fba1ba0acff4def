/**
 * The typed client (`client.gen.ts`, emitted with `--client`): its view. One method per tool (its input
 * type with the properties the server fills in from `default` made optional again, its result typed with
 * the output type), per prompt (its arguments type) and per resource (a template's variables type).
 */
import { requireAppliedDefaults } from "../defaults.js";
import type { ServerIR } from "../ir.js";
import { ident } from "../names.js";
import { copyJson, isSchemaNode, type SchemaNode } from "../schema-walk.js";
import { docComment, jsonLiteral, type Code } from "./render.js";

const INDENT = "    ";
const code = (text: string): Code => ({ code: text });

export function clientView(ir: ServerIR) {
  const doc = (kind: string, item: { name: string; wire: { title?: string; description?: string } }, extra = "") =>
    code(docComment(`${kind} ${JSON.stringify(item.name)}${item.wire.title ? ` (${item.wire.title})` : ""}${item.wire.description ? `: ${item.wire.description}` : "."}${extra}`, INDENT));
  return {
    tools: ir.tools.map((t) => {
      return {
        name: t.name,
        doc: doc("Calls tool", t, t.hidden ? "\nHidden: callable, not listed." : ""),
        inputType: callerType(t.inputType, t.wire.inputSchema),
        outputType: t.outputType ?? false,
      };
    }),
    prompts: ir.prompts.map((p) => ({ name: p.name, doc: doc("Gets prompt", p), argsType: callerType(p.argumentsType, p.schema) })),
    resources: ir.resources.map((r) => ({ name: r.name, doc: doc("Reads resource", r, `\nURI: ${r.wire.uri}`), uri: r.wire.uri })),
    templates: ir.templates.map((t) => ({
      name: t.name,
      doc: doc("Reads resource template", t, `\nURI template: ${t.wire.uriTemplate}`),
      argsType: callerType(t.variablesType, t.schema),
      uriTemplate: t.wire.uriTemplate,
    })),
  };
}

/** What a caller passes for the handler's type `name`: the values the validator defaults stay optional. */
function callerType(name: string, schema: SchemaNode): Code {
  const defaults = defaultedSpec(schema);
  const type = `T.${ident(name)}`;
  return code(defaults === undefined ? type : `WithDefaults<${type}, ${defaults}>`);
}

/**
 * Where the input validator fills in defaults, as the type literal `WithDefaults` reads (`{ "limit": true }`),
 * or undefined for none. Found by the compiler's own rule (`requireAppliedDefaults`, which makes those
 * properties required in the handler's input type): what it adds to a copy's `required` is the answer.
 */
function defaultedSpec(schema: SchemaNode): string | undefined {
  const copy = copyJson(schema);
  requireAppliedDefaults(copy);
  const spec = (before: SchemaNode, after: SchemaNode): string | undefined => {
    const had = new Set(Array.isArray(before.required) ? before.required : []);
    const entries: string[] = [];
    const properties = before.properties;
    if (isSchemaNode(properties)) {
      for (const [name, sub] of Object.entries(properties)) {
        const added = Array.isArray(after.required) && after.required.includes(name) && !had.has(name);
        const inner = isSchemaNode(sub) ? spec(sub, (after.properties as Record<string, SchemaNode>)[name]!) : undefined;
        if (added || inner) entries.push(`${jsonLiteral(name)}: ${added ? "true" : inner}`);
      }
    }
    if (isSchemaNode(before.items) && isSchemaNode(after.items)) {
      const inner = spec(before.items, after.items);
      // Array items: `WithDefaults` looks through arrays, so the items' own marks apply at the same level.
      if (inner) entries.push(inner.slice(2, -2));
    }
    return entries.length ? `{ ${entries.join(", ")} }` : undefined;
  };
  return spec(schema, copy);
}
