// Handler of the fixture tool job: waits for `release` (or its cancellation), never for time.
import type { ToolHandler } from "@mcpgen/runtime";
import { aborted, gates } from "./gates.js";

const handler: ToolHandler<{ label: string }> = async ({ label }, ctx) => {
  await new Promise<void>((resolve, reject) => {
    gates.set(label, resolve);
    ctx.signal.addEventListener("abort", () => {
      aborted.add(label);
      gates.delete(label);
      reject(ctx.signal.reason);
    }, { once: true });
  });
  return `job ${label} done on ${process.pid}`;
};

export default handler;
