// Handler for tool multi_input: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { MultiInputHandler } from "../generated/handlers.gen.js";

const handler: MultiInputHandler = async (_input, ctx) => {
  const [name, confirm] = await Promise.all([
    ctx.elicit({ message: "Your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } }, { key: "name" }),
    ctx.elicit({ message: "Go ahead?", requestedSchema: { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] } }, { key: "confirm" }),
  ]);
  return `${String(name.content?.name ?? "someone")}: ${confirm.action}`;
};

export default handler;
