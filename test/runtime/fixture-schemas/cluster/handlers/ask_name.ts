// Handler of the fixture tool ask_name: an elicitation, answered wherever the client's answer lands.
import type { ToolHandler } from "@mcpgen/runtime";

const handler: ToolHandler<object> = async (_args, ctx) => {
  const answer = await ctx.elicit({ message: "What is your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } });
  return `Hello, ${answer.action === "accept" ? String(answer.content?.name) : "nobody"}, from ${process.pid}`;
};

export default handler;
