/**
 * Peer: the physical limit. A bare newline-JSON process with no MCP machinery: it parses each line,
 * answers `initialize` and `tools/list` with payloads serialized once at start-up, answers `tools/call add`
 * with the same result shape mcpgen and the SDKs send (the sum as `structuredContent` plus a JSON text block,
 * no validation), and writes the answers to one input chunk in one write.
 *
 * A request whose `_meta` names the 2026-07-28 protocol is answered the 2026 way, as mcpgen answers it (no
 * handshake needed; `"resultType":"complete"` first and the server's name and version in the result's `_meta`), without
 * checking the rest of the envelope. Other tools are answered from `--canned` (mcpgen's own answer, recorded
 * by the benchmark), serialized again for every call as a bare server serializes its result, so that the
 * echo writes exactly what mcpgen writes and does the work any server answering it must do.
 *   node echo.mjs [--tools tools.json] [--canned canned.json] [--busy-ns N]
 *     tools.json    `{ server, tools }`, the 100-tool list to answer with
 *     canned.json   `{ <tool name>: <serialized result> }`
 *     --busy-ns N   spins N ns of CPU per request before answering: how the limit's figures move when a
 *                   server does a little more work per request (the `echo-busy` peer of bench/run.mjs)
 */
import { readFileSync } from "node:fs";

const option = (name) => (process.argv.includes(name) ? readFileSync(process.argv[process.argv.indexOf(name) + 1], "utf8") : undefined);
const { server, tools } = JSON.parse(option("--tools") ?? '{"server":{"name":"bench-echo","version":"1.0.0"},"tools":[]}');
// name → the result object (recorded serialized: parsed once here, stringified again on every call).
const CANNED = Object.fromEntries(Object.entries(JSON.parse(option("--canned") ?? "{}")).map(([name, text]) => [name, JSON.parse(text)]));
const INITIALIZE = `,"result":${JSON.stringify({ protocolVersion: "2025-11-25", capabilities: { tools: { listChanged: true } }, serverInfo: server })}}`;
const LIST = `,"result":${JSON.stringify({ tools })}}`;
const MODERN = "2026-07-28";
const busyMs = Number(process.argv.includes("--busy-ns") ? process.argv[process.argv.indexOf("--busy-ns") + 1] : 0) / 1e6;
const SERVER_META = `"_meta":${JSON.stringify({ "io.modelcontextprotocol/serverInfo": { name: server.name, version: server.version } })}`;

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
    if (busyMs > 0) for (const until = performance.now() + busyMs; performance.now() < until; );
    const head = `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)}`;
    const modern = message.params?._meta?.["io.modelcontextprotocol/protocolVersion"] === MODERN;
    if (message.method === "tools/call") {
      let members;
      if (message.params.name === "add") {
        const { a, b } = message.params.arguments;
        const output = JSON.stringify({ sum: a + b });
        members = `"content":[{"type":"text","text":${JSON.stringify(output)}}],"structuredContent":${output}`;
      } else {
        const result = CANNED[message.params.name];
        members = result === undefined ? `"content":[],"isError":true` : JSON.stringify(result).slice(1, -1);
      }
      out += modern ? `${head},"result":{"resultType":"complete",${members},${SERVER_META}}}\n` : `${head},"result":{${members}}}\n`;
    } else if (message.method === "tools/list") out += head + LIST + "\n";
    else if (message.method === "initialize") out += head + INITIALIZE + "\n";
    else out += `${head},"error":{"code":-32601,"message":"Method not found"}}\n`;
  }
  partial += chunk.slice(start);
  if (out !== "") process.stdout.write(out);
});
