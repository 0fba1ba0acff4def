// Handler of the fixture tool slow (test/runtime/fixture-schemas/core/schemas/tools/slow.json).
import { setTimeout as sleep } from "node:timers/promises";
import { type ToolHandler } from "@mcpgen/runtime";

const handler: ToolHandler<{ steps?: number; delayMs?: number }> = async ({ steps = 3, delayMs = 10 }, ctx) => {
  for (let step = 1; step <= steps; step++) {
    await sleep(delayMs, undefined, { signal: ctx.signal });
    await ctx.progress(step, steps, `step ${step} of ${steps}`);
  }
  return `finished ${steps} steps`;
};

export default handler;
