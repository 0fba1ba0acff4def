// Handler for tool test_input_required_result_elicitation: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestInputRequiredResultElicitationHandler } from "../generated/handlers.gen.js";

const handler: TestInputRequiredResultElicitationHandler = async (_input, ctx) => {
  const answer = await ctx.elicit({ message: "What is your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } }, { key: "user_name" });
  return `Hello, ${String(answer.content?.name ?? "stranger")}!`;
};

export default handler;
