// Handler for tool json_schema_2020_12_tool: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { JsonSchema202012ToolHandler } from "../generated/handlers.gen.js";

const handler: JsonSchema202012ToolHandler = async (input) => `Received: ${JSON.stringify(input)}`;

export default handler;
