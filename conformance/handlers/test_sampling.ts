// Handler for tool test_sampling: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestSamplingHandler } from "../generated/handlers.gen.js";

const handler: TestSamplingHandler = async ({ prompt }, ctx) => {
  const answer = await ctx.sample({ messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens: 100 });
  const content = Array.isArray(answer.content) ? answer.content[0] : answer.content;
  return `LLM response: ${typeof content?.text === "string" ? content.text : JSON.stringify(content)}`;
};

export default handler;
