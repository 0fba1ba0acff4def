// Handler for tool test_trigger_prompt_change: the fixture the official MCP conformance suite expects (see conformance/README.md).
// The prompt list is frozen at build time; the hook only announces a change, which is what the suite observes.
import type { TestTriggerPromptChangeHandler } from "../generated/handlers.gen.js";

const handler: TestTriggerPromptChangeHandler = async (_input, ctx) => {
  ctx.listChanged("prompts");
  return "prompts/list_changed sent";
};

export default handler;
