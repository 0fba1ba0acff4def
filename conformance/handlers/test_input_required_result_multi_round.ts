// Handler for tool test_input_required_result_multi_round: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestInputRequiredResultMultiRoundHandler } from "../generated/handlers.gen.js";

const handler: TestInputRequiredResultMultiRoundHandler = async (_input, ctx) => {
  const step1 = await ctx.elicit(
    { message: "Step 1: What is your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
    { key: "step1" },
  );
  const step2 = await ctx.elicit(
    { message: "Step 2: What is your favorite color?", requestedSchema: { type: "object", properties: { color: { type: "string" } }, required: ["color"] } },
    { key: "step2" },
  );
  return `name=${String(step1.content?.name)}, color=${String(step2.content?.color)}`;
};

export default handler;
