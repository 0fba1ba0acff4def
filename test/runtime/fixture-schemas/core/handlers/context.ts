// Handler of the fixture tool context (test/runtime/fixture-schemas/core/schemas/tools/context.json).
import { type ToolHandler } from "@mcpgen/runtime";

const handler: ToolHandler<object> = async (_input, ctx) =>
  JSON.stringify({
    requestId: ctx.requestId,
    protocolVersion: ctx.protocolVersion,
    clientInfo: ctx.clientInfo,
    clientCapabilities: ctx.clientCapabilities,
    meta: ctx.meta,
    auth: ctx.auth,
    aborted: ctx.signal.aborted,
  });

export default handler;
