// Handler for tool test_missing_capability: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestMissingCapabilityHandler } from "../generated/handlers.gen.js";

const handler: TestMissingCapabilityHandler = async (_input, ctx) => {
  // Without the client's "sampling" capability this ends the call with MissingRequiredClientCapability (-32021).
  const answer = await ctx.sample({ messages: [{ role: "user", content: { type: "text", text: "ping" } }], maxTokens: 10 });
  return `sampled: ${JSON.stringify(answer.content)}`;
};

export default handler;
