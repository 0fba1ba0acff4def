// Handler of the fixture tool touch.
import type { ToolHandler } from "@mcpgen/runtime";

const handler: ToolHandler<{ uri: string }> = async ({ uri }, ctx) => {
  ctx.resourceUpdated(uri);
  return `touched ${uri} on ${process.pid}`;
};

export default handler;
