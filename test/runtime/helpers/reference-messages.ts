/**
 * Genuine MCP 2026-07-28 messages from sources independent of mcpgen, for the oracle's own tests: an oracle
 * must accept them. The spec's example messages (beside the spec schemas) and the answers of the official MCP
 * SDK server (`@modelcontextprotocol/server`) to the same requests.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";

export interface ReferenceMessage {
  what: string;
  message: unknown;
  /** The method of the request a response answers. */
  method?: string;
}

/** The spec's 2026-07-28 example messages the oracle self-test uses. */
export function specExamples(specDir: string): ReferenceMessage[] {
  const example = (name: string, file: string): unknown =>
    JSON.parse(readFileSync(resolve(specDir, "examples-2026-07-28", name, file), "utf8"));
  return [
    { what: "the spec's DiscoverResultResponse example", message: example("DiscoverResultResponse", "discover-result-response.json"), method: "server/discover" },
    { what: "the spec's ListToolsResultResponse example", message: example("ListToolsResultResponse", "list-tools-result-response.json"), method: "tools/list" },
    { what: "the spec's CallToolResultResponse example", message: example("CallToolResultResponse", "call-tool-result-response.json"), method: "tools/call" },
    { what: "the spec's UnsupportedProtocolVersionError example", message: example("UnsupportedProtocolVersionError", "unsupported-version.json") },
  ];
}

/** The official SDK server's 2026-07-28 answers to the requests the spec examples answer. */
export async function sdkServerMessages(): Promise<ReferenceMessage[]> {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "reference", version: "1.0.0" });
    server.registerTool("echo", { description: "Says hello" }, async () => ({ content: [{ type: "text", text: "hello" }] }));
    return server;
  });
  const answer = async (method: string, params: Record<string, unknown>, version = "2026-07-28"): Promise<unknown> => {
    const _meta = {
      "io.modelcontextprotocol/protocolVersion": version,
      "io.modelcontextprotocol/clientInfo": { name: "oracle-test", version: "1.0.0" },
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": version,
      "mcp-method": method,
    };
    if (typeof params.name === "string") headers["mcp-name"] = params.name;
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta } });
    const response = await handler.fetch(new Request("http://127.0.0.1/mcp", { method: "POST", headers, body }));
    return response.json();
  };
  return [
    { what: "the SDK server's server/discover answer", message: await answer("server/discover", {}), method: "server/discover" },
    { what: "the SDK server's tools/list answer", message: await answer("tools/list", {}), method: "tools/list" },
    { what: "the SDK server's tools/call answer", message: await answer("tools/call", { name: "echo", arguments: {} }), method: "tools/call" },
    { what: "the SDK server's answer to an unknown protocol version", message: await answer("tools/list", {}, "1900-01-01") },
  ];
}
