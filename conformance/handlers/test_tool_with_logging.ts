// Handler for tool test_tool_with_logging: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestToolWithLoggingHandler } from "../generated/handlers.gen.js";

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });

const handler: TestToolWithLoggingHandler = async (_input, ctx) => {
  await ctx.log("info", "Tool execution started");
  await sleep(50, ctx.signal);
  await ctx.log("info", "Tool processing data");
  await sleep(50, ctx.signal);
  await ctx.log("info", "Tool execution completed");
  return "Tool with logging executed successfully";
};

export default handler;
