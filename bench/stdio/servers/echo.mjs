/**
 * Peer: the physical limit. A bare newline-JSON process with no MCP machinery: it parses each line,
 * answers `initialize` and `tools/list` with payloads serialized once at start-up, answers `tools/call add`
 * with the same result shape mcpgen and the SDKs send (the sum as `structuredContent` plus a JSON text block,
 * no validation), and writes the answers to one input chunk in one write.
 *   node echo.mjs [--tools tools.json]   (tools.json: `{ server, tools }`, the 100-tool list to answer with)
 */
import { readFileSync } from "node:fs";

const at = process.argv.indexOf("--tools");
const { server, tools } = at === -1 ? { server: { name: "bench-echo", version: "1.0.0" }, tools: [] } : JSON.parse(readFileSync(process.argv[at + 1], "utf8"));
const INITIALIZE = `,"result":${JSON.stringify({ protocolVersion: "2025-11-25", capabilities: { tools: { listChanged: true } }, serverInfo: server })}}`;
const LIST = `,"result":${JSON.stringify({ tools })}}`;

let partial = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  let out = "";
  let start = 0;
  let newline;
  while ((newline = chunk.indexOf("\n", start)) !== -1) {
    const line = partial === "" ? chunk.slice(start, newline) : partial + chunk.slice(start, newline);
    partial = "";
    start = newline + 1;
    const message = JSON.parse(line);
    if (message.id === undefined) continue; // notifications
    const head = `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)}`;
    if (message.method === "tools/call") {
      const { a, b } = message.params.arguments;
      const output = JSON.stringify({ sum: a + b });
      out += `${head},"result":{"content":[{"type":"text","text":${JSON.stringify(output)}}],"structuredContent":${output}}}\n`;
    } else if (message.method === "tools/list") out += head + LIST + "\n";
    else if (message.method === "initialize") out += head + INITIALIZE + "\n";
    else out += `${head},"error":{"code":-32601,"message":"Method not found"}}\n`;
  }
  partial += chunk.slice(start);
  if (out !== "") process.stdout.write(out);
});
