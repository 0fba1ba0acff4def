// Handler for tool test_input_required_result_list_roots: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestInputRequiredResultListRootsHandler } from "../generated/handlers.gen.js";

const handler: TestInputRequiredResultListRootsHandler = async (_input, ctx) => {
  const { roots } = await ctx.listRoots({ key: "client_roots" });
  return `Client roots: ${roots.map((root) => root.uri).join(", ")}`;
};

export default handler;
