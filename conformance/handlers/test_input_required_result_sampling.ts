// Handler for tool test_input_required_result_sampling: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestInputRequiredResultSamplingHandler } from "../generated/handlers.gen.js";

const handler: TestInputRequiredResultSamplingHandler = async (_input, ctx) => {
  const answer = await ctx.sample(
    { messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }], maxTokens: 100 },
    { key: "capital_question" },
  );
  const content = Array.isArray(answer.content) ? answer.content[0] : answer.content;
  return `The model answered: ${typeof content?.text === "string" ? content.text : JSON.stringify(content)}`;
};

export default handler;
