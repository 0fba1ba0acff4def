// Handler of the fixture tool ask_later: a task that asks for input once released, wherever its answer lands.
import type { ToolHandler } from "@mcpgen/runtime";
import { gates } from "./gates.js";

const handler: ToolHandler<{ label: string }> = async ({ label }, ctx) => {
  await new Promise<void>((resolve) => gates.set(label, resolve));
  const answer = await ctx.elicit({ message: "What is your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } });
  return `Hello, ${answer.action === "accept" ? String(answer.content?.name) : "nobody"}, from ${process.pid}`;
};

export default handler;
