// Handler for tool test_tool_with_progress: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestToolWithProgressHandler } from "../generated/handlers.gen.js";

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });

const handler: TestToolWithProgressHandler = async (_input, ctx) => {
  await ctx.progress(0, 100);
  await sleep(50, ctx.signal);
  await ctx.progress(50, 100);
  await sleep(50, ctx.signal);
  await ctx.progress(100, 100);
  return "Tool with progress executed successfully";
};

export default handler;
