/**
 * Peer: the official SDK v1 (`@modelcontextprotocol/sdk`): one `McpServer` + `StreamableHTTPServerTransport` per
 * session on a plain `node:http` server, routed by `Mcp-Session-Id` (the SDK's documented pattern).
 *   node sdk-v1.mjs [--mode json|sse]
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { flag, ready } from "./common.mjs";
import { registerTools, SERVER_INFO } from "../../stdio/servers/sdk-tools.mjs";

const json = (flag("--mode") ?? "json") === "json";
const sessions = new Map();

const http = createServer(async (req, res) => {
  const id = req.headers["mcp-session-id"];
  let transport = typeof id === "string" ? sessions.get(id) : undefined;
  if (!transport) {
    if (req.method !== "POST" || id !== undefined) {
      res.writeHead(id === undefined ? 400 : 404).end();
      return;
    }
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: json,
      onsessioninitialized: (sessionId) => sessions.set(sessionId, transport),
    });
    transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
    const server = new McpServer(SERVER_INFO("v1"));
    registerTools((name, config, handler) => server.registerTool(name, { ...config, inputSchema: config.inputSchema.shape, outputSchema: config.outputSchema.shape }, handler), []);
    await server.connect(transport);
  }
  await transport.handleRequest(req, res);
});
http.listen(0, "127.0.0.1", () => ready(`http://127.0.0.1:${http.address().port}/mcp`));
