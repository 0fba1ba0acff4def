// Handler for tool slow_compute: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { SlowComputeHandler } from "../generated/handlers.gen.js";

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });

const handler: SlowComputeHandler = async ({ seconds, label }, ctx) => {
  await sleep(seconds * 1000, ctx.signal);
  return `Computed ${label ?? "result"} after ${seconds} s`;
};

export default handler;
