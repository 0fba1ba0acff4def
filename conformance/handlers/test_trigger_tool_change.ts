// Handler for tool test_trigger_tool_change: the fixture the official MCP conformance suite expects (see conformance/README.md).
// The tool list is frozen at build time; the hook only announces a change, which is what the suite observes.
import type { TestTriggerToolChangeHandler } from "../generated/handlers.gen.js";

const handler: TestTriggerToolChangeHandler = async (_input, ctx) => {
  ctx.listChanged("tools");
  return "tools/list_changed sent";
};

export default handler;
