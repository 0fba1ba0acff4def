// Handler for tool test_input_required_result_capabilities: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestInputRequiredResultCapabilitiesHandler } from "../generated/handlers.gen.js";

const handler: TestInputRequiredResultCapabilitiesHandler = async (_input, ctx) => {
  // Ask only for what the client declared.
  const caps = ctx.clientCapabilities ?? {};
  const asks: Promise<unknown>[] = [];
  if (caps.elicitation) asks.push(ctx.elicit({ message: "What is your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } }, { key: "user_name" }));
  if (caps.sampling) asks.push(ctx.sample({ messages: [{ role: "user", content: { type: "text", text: "Say hi" } }], maxTokens: 10 }, { key: "greeting" }));
  if (caps.roots) asks.push(ctx.listRoots({ key: "client_roots" }));
  const answers = await Promise.all(asks);
  return `answers: ${answers.length}`;
};

export default handler;
