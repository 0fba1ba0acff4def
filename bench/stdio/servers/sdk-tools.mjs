/**
 * The tools the official-SDK peers register, defined the way an SDK user writes them: zod schemas.
 *   add          {a, b} → {sum}, input and output schema, structured output plus a JSON text block (what mcpgen's
 *                example `add` answers)
 *   tools.json   the 100-tool fixture: the exact wire schemas mcpgen lists, turned into zod with z.fromJSONSchema
 *                at start-up (what a server holding JSON Schemas must do; a hand-written zod module would build
 *                its schemas faster), or handed to `options.fromJsonSchema`; the handlers are never called
 */
import { readFileSync } from "node:fs";
import { z } from "zod";

export const SERVER_INFO = (sdk) => ({ name: `bench-sdk-${sdk}`, version: "1.0.0" });

/** Calls `register(name, config, handler)` for every tool of the chosen set. */
export function registerTools(register, argv, { fromJsonSchema = z.fromJSONSchema } = {}) {
  const at = argv.indexOf("--tools");
  if (at === -1) {
    register(
      "add",
      {
        title: "Add two numbers",
        description: "Adds two numbers and returns their sum.",
        inputSchema: z.object({ a: z.number().describe("First addend."), b: z.number().describe("Second addend.") }).strict(),
        outputSchema: z.object({ sum: z.number() }).strict(),
        annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      },
      async ({ a, b }) => {
        const output = { sum: a + b };
        return { content: [{ type: "text", text: JSON.stringify(output) }], structuredContent: output };
      },
    );
    return;
  }
  const { tools } = JSON.parse(readFileSync(argv[at + 1], "utf8"));
  for (const tool of tools) {
    register(
      tool.name,
      {
        ...(tool.title !== undefined && { title: tool.title }),
        ...(tool.description !== undefined && { description: tool.description }),
        inputSchema: fromJsonSchema(tool.inputSchema),
        ...(tool.outputSchema !== undefined && { outputSchema: fromJsonSchema(tool.outputSchema) }),
        ...(tool.annotations !== undefined && { annotations: tool.annotations }),
      },
      async () => ({ content: [{ type: "text", text: "not implemented" }], isError: true }),
    );
  }
}
