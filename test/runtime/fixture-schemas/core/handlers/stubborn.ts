// Handler of the fixture tool stubborn (test/runtime/fixture-schemas/core/schemas/tools/stubborn.json).
import { type ToolHandler } from "@mcpgen/runtime";

const handler: ToolHandler<{ ms?: number }> = async ({ ms = 60_000 }, ctx) => {
  await ctx.progress(0);
  await new Promise((resolve) => setTimeout(resolve, ms));
  return "done at last";
};

export default handler;
