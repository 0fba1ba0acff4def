// Handler for prompt test_input_required_result_prompt: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestInputRequiredResultPromptPromptHandler } from "../../generated/handlers.gen.js";

const handler: TestInputRequiredResultPromptPromptHandler = async (_args, ctx) => {
  const answer = await ctx.elicit(
    { message: "What context should the prompt use?", requestedSchema: { type: "object", properties: { context: { type: "string" } }, required: ["context"] } },
    { key: "user_context" },
  );
  const context = answer.action === "accept" ? String(answer.content?.context ?? "") : "(none)";
  return `Use this context: ${context}`;
};

export default handler;
