// Handler for tool test_streaming_elicitation: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestStreamingElicitationHandler } from "../generated/handlers.gen.js";

const handler: TestStreamingElicitationHandler = async (_input, ctx) => {
  await ctx.progress(1, 2, "about to ask");
  const answer = await ctx.elicit(
    { message: "Continue?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } },
    { key: "continue" },
  );
  return `answer: ${answer.action}`;
};

export default handler;
