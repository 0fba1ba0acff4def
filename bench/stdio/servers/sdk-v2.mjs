/**
 * Peer: the official SDK v2 (`@modelcontextprotocol/server`) `McpServer` over its `StdioServerTransport`.
 * `--json-schema`: the 100 tools' schemas go in as raw JSON Schema (the SDK's `fromJsonSchema`, validated by its
 * default ajv-based validator, compiled at registration) instead of zod.
 */
import { fromJsonSchema, McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { registerTools, SERVER_INFO } from "./sdk-tools.mjs";

const server = new McpServer(SERVER_INFO("v2"));
registerTools((name, config, handler) => server.registerTool(name, config, handler), process.argv, process.argv.includes("--json-schema") ? { fromJsonSchema } : {});
await server.connect(new StdioServerTransport());
