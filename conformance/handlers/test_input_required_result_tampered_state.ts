// Handler for tool test_input_required_result_tampered_state: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestInputRequiredResultTamperedStateHandler } from "../generated/handlers.gen.js";

const handler: TestInputRequiredResultTamperedStateHandler = async (_input, ctx) => {
  const answer = await ctx.elicit(
    { message: "Please confirm", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } },
    { key: "confirm" },
  );
  return `confirmed=${String(answer.content?.ok)}`;
};

export default handler;
