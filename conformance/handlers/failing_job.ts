// Handler for tool failing_job: the fixture the official MCP conformance suite expects (see conformance/README.md).
import { ToolError } from "@mcpgen/runtime";
import type { FailingJobHandler } from "../generated/handlers.gen.js";

const handler: FailingJobHandler = async (_input, ctx) => {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  ctx.signal.throwIfAborted();
  throw new ToolError("The job failed: nothing to process");
};

export default handler;
