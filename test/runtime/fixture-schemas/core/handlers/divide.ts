// Handler of the fixture tool divide (test/runtime/fixture-schemas/core/schemas/tools/divide.json).
import { ToolError, type ToolHandler } from "@mcpgen/runtime";

const handler: ToolHandler<{ a: number; b: number }, { quotient: number }> = async ({ a, b }) => {
  if (b === 0) throw new ToolError("Cannot divide by zero; pass a non-zero b.");
  return { quotient: a / b };
};

export default handler;
