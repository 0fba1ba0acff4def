// Handler for tool test_input_required_result_multiple_inputs: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestInputRequiredResultMultipleInputsHandler } from "../generated/handlers.gen.js";

const handler: TestInputRequiredResultMultipleInputsHandler = async (_input, ctx) => {
  const [name, greeting, roots] = await Promise.all([
    ctx.elicit({ message: "What is your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } }, { key: "user_name" }),
    ctx.sample({ messages: [{ role: "user", content: { type: "text", text: "Generate a greeting" } }], maxTokens: 50 }, { key: "greeting" }),
    ctx.listRoots({ key: "client_roots" }),
  ]);
  const text = Array.isArray(greeting.content) ? greeting.content[0]?.text : greeting.content.text;
  return `name=${String(name.content?.name)}, greeting=${String(text)}, roots=${roots.roots.length}`;
};

export default handler;
