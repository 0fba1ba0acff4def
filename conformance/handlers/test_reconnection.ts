// Handler for tool test_reconnection: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestReconnectionHandler } from "../generated/handlers.gen.js";

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });

const handler: TestReconnectionHandler = async (_input, ctx) => {
  for (let step = 1; step <= 3; step++) {
    await sleep(100, ctx.signal);
    await ctx.log("info", `step ${step} of 3`);
  }
  return "Reconnection test completed";
};

export default handler;
