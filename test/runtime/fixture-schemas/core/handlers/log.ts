// Handler of the fixture tool log (test/runtime/fixture-schemas/core/schemas/tools/log.json).
import { type ToolHandler } from "@mcpgen/runtime";

const handler: ToolHandler<object> = async (_input, ctx) => {
  await ctx.log("debug", "debug detail");
  await ctx.log("info", { step: "info" });
  await ctx.log("warning", "careful", "fixture");
  await ctx.log("error", { code: 7 });
  return "logged";
};

export default handler;
