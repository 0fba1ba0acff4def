// Handler for tool test_input_required_result_request_state: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestInputRequiredResultRequestStateHandler } from "../generated/handlers.gen.js";

const handler: TestInputRequiredResultRequestStateHandler = async (_input, ctx) => {
  // The runtime seals the answers of each round into an HMAC-protected requestState and verifies it on retry.
  const answer = await ctx.elicit(
    { message: "Please confirm", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } },
    { key: "confirm" },
  );
  return `state-ok: confirmed=${String(answer.content?.ok)}`;
};

export default handler;
