// Handler for tool test_error_handling: the fixture the official MCP conformance suite expects (see conformance/README.md).
import { ToolError } from "@mcpgen/runtime";
import type { TestErrorHandlingHandler } from "../generated/handlers.gen.js";

const handler: TestErrorHandlingHandler = async () => {
  throw new ToolError("This tool intentionally returns an error for testing");
};

export default handler;
