// Handler for tool test_tool_with_task: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestToolWithTaskHandler } from "../generated/handlers.gen.js";

const handler: TestToolWithTaskHandler = async (_input, ctx) => {
  // Asked before the call becomes a task: an input_required round; the task starts on the retry.
  const answer = await ctx.elicit(
    { message: "What is your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
    { key: "user_name", beforeTask: true },
  );
  await new Promise((resolve) => setTimeout(resolve, 100));
  return `Hello, ${String(answer.content?.name ?? "stranger")}!`;
};

export default handler;
