// Handler of the fixture tool broken_module (test/runtime/fixture-schemas/core/schemas/tools/broken_module.json).
import { type ToolHandler } from "@mcpgen/runtime";

// This module fails while it loads, as a handler with a missing dependency would.
throw new Error("Cannot find module './no-such-handler.js'");

const handler: ToolHandler<object> = async () => "unreachable";

export default handler;
