/**
 * Peer: the official SDK v2 (`@modelcontextprotocol/server`): one `McpServer` + `WebStandardStreamableHTTPServerTransport`
 * per session, on `node:http` through the usual Node → fetch bridge (IncomingMessage → Request, Response →
 * ServerResponse), routed by `Mcp-Session-Id`.
 *   node sdk-v2.mjs [--mode json|sse]
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { McpServer, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { flag, ready } from "./common.mjs";
import { registerTools, SERVER_INFO } from "../../stdio/servers/sdk-tools.mjs";

const json = (flag("--mode") ?? "json") === "json";
const sessions = new Map();

async function toRequest(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
  return new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url}`, { method: req.method, headers, body: req.method === "GET" || req.method === "HEAD" ? undefined : body });
}

async function send(response, res) {
  const headers = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  if (!response.body) return res.end();
  const reader = response.body.getReader();
  res.on("close", () => void reader.cancel().catch(() => {}));
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    res.write(value);
  }
  res.end();
}

const http = createServer(async (req, res) => {
  const id = req.headers["mcp-session-id"];
  let transport = typeof id === "string" ? sessions.get(id) : undefined;
  if (!transport) {
    if (req.method !== "POST" || id !== undefined) {
      res.writeHead(id === undefined ? 400 : 404).end();
      return;
    }
    transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: json,
      onsessioninitialized: (sessionId) => sessions.set(sessionId, transport),
    });
    transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
    const server = new McpServer(SERVER_INFO("v2"));
    registerTools((name, config, handler) => server.registerTool(name, config, handler), []);
    await server.connect(transport);
  }
  await send(await transport.handleRequest(await toRequest(req)), res);
});
http.listen(0, "127.0.0.1", () => ready(`http://127.0.0.1:${http.address().port}/mcp`));
