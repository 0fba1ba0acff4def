// Handler for tool confirm_delete: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { ConfirmDeleteHandler } from "../generated/handlers.gen.js";

const handler: ConfirmDeleteHandler = async ({ filename }, ctx) => {
  const answer = await ctx.elicit(
    { message: `Delete ${filename}?`, requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] } },
    { key: "confirm" },
  );
  return answer.action === "accept" && answer.content?.confirm === true ? `Deleted ${filename}` : `Kept ${filename}`;
};

export default handler;
