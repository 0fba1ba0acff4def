// Handler of the fixture tool add (test/runtime/fixture-schemas/core/schemas/tools/add.json).
import { type ToolHandler } from "@mcpgen/runtime";

const handler: ToolHandler<{ a: number; b: number }, { sum: number }> = async ({ a, b }) => ({ sum: a + b });

export default handler;
