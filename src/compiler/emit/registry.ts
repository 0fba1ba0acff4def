/**
 * The view of `registry.gen.ts`: every identifier, import and literal it prints. Each tool, resource,
 * template and prompt gets its own constant holding its wire metadata, printed over several lines, so a
 * review diff of the generated registry names the entry that changed (git shows the constant in the hunk
 * header); the runtime serializes the list payloads from them once.
 *
 * A tool's constant is its JSON text (`jsonText`), which the server lists as it is and parses only when a
 * call needs it: object literals cost more to load than the text does, and the text needs no serializing.
 */
import type { ServerIR } from "../ir.js";
import type { Code } from "./render.js";

/** What the registry needs of the handler contract (`handlers.gen.ts`): the handler type of each entry. */
export interface ContractNames {
  tools: readonly { handlerType: string }[];
  templates: readonly { handlerType: string; completionsType: string | boolean }[];
  prompts: readonly { handlerType: string; completionsType: string | boolean }[];
}

/**
 * `prefix` + type name (`toolGetTask`, `promptPlanDay`): lowercase first, so never one of the imported
 * runtime types or `H`; type names are unique per kind (checked), a counter covers the rest.
 */
function constNames(prefix: string, typeNames: readonly string[]): string[] {
  const used = new Set<string>();
  return typeNames.map((t) => {
    let name = prefix + t;
    for (let n = 2; used.has(name); n++) name = `${prefix}${t}_${n}`;
    used.add(name);
    return name;
  });
}

/** `printed`: each tool's wire metadata as `jsonText` prints it, in the order of `ir.tools` (emit keeps them per tool). */
export function registryView(ir: ServerIR, contract: ContractNames, handlerImport: (file: string) => string, printed: readonly Code[]) {
  const primitives = ir.resources.length + ir.templates.length + ir.prompts.length > 0;
  const names = {
    tools: constNames("tool", ir.tools.map((t) => t.typeName)),
    resources: constNames("resource", ir.resources.map((r) => r.typeName)),
    templates: constNames("template", ir.templates.map((t) => t.typeName)),
    prompts: constNames("prompt", ir.prompts.map((p) => p.typeName)),
  };
  /** A template's or a prompt's entry: both have arguments (validated) and may complete them. */
  const withArguments = <T extends { name: string; wire: unknown; completions: unknown }>(kind: "templates" | "prompts", dir: string, item: T, i: number) => ({
    name: item.name,
    constName: names[kind][i]!,
    wire: item.wire,
    handlerType: contract[kind][i]!.handlerType,
    completionsType: contract[kind][i]!.completionsType,
    completions: item.completions,
    validatorImport: `./validators/${dir}/${item.name}.gen.js`,
    handlerImport: handlerImport(`${dir}/${item.name}.ts`),
  });
  return {
    primitives,
    server: ir.server,
    instructions: ir.instructions ?? false,
    tools: ir.tools.map((t, i) => ({
      name: t.name,
      constName: names.tools[i]!,
      wire: printed[i]!,
      hidden: t.hidden,
      handlerType: contract.tools[i]!.handlerType,
      validatorImport: `./validators/${t.name}.gen.js`,
      handlerImport: handlerImport(`${t.name}.ts`),
    })),
    resources: ir.resources.map((r, i) => ({
      name: r.name,
      constName: names.resources[i]!,
      wire: r.wire,
      contents: r.contents ?? false,
      handlerType: `${r.typeName}ResourceHandler`,
      handlerImport: handlerImport(`resources/${r.name}.ts`),
    })),
    templates: ir.templates.map((t, i) => ({ ...withArguments("templates", "resources", t, i), variables: t.variables })),
    prompts: ir.prompts.map((p, i) => withArguments("prompts", "prompts", p, i)),
  };
}
