/** Peer: the official SDK v1 (`@modelcontextprotocol/sdk`) `McpServer` over its `StdioServerTransport`. */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { registerTools, SERVER_INFO } from "./sdk-tools.mjs";

const server = new McpServer(SERVER_INFO("v1"));
registerTools((name, config, handler) => server.registerTool(name, config, handler), process.argv);
await server.connect(new StdioServerTransport());
