// Handler for tool test_logging_tool: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestLoggingToolHandler } from "../generated/handlers.gen.js";

const handler: TestLoggingToolHandler = async (_input, ctx) => {
  for (const level of ["debug", "info", "warning", "error"] as const) await ctx.log(level, `a ${level} message`);
  return "logged at every level (delivered only at or above the requested level)";
};

export default handler;
