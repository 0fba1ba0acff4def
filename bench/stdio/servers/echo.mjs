/**
 * Peer: the physical limit. A bare newline-JSON process with no MCP machinery: it parses each line,
 * answers `initialize` and `tools/list` with payloads serialized once at start-up, answers `tools/call add`
 * with the same result shape mcpgen and the SDKs send (the sum as `structuredContent` plus a JSON text block,
 * no validation), and writes the answers to one input chunk in one write.
 *
 * A request whose `_meta` names the 2026-07-28 protocol is answered the 2026 way, as mcpgen answers it (no
 * handshake needed; `"resultType":"complete"` first and the server's name and version in the result's `_meta`), without
 * checking the rest of the envelope. With `--tasks`, `tools/call list_tasks` is answered as the example's
 * handler answers it, the bare way: the store's tasks, newest first, filtered by `status` and `tag`, the first
 * `limit` of them and how many matched, sent as mcpgen sends a structured result (its JSON as a text block
 * and as `structuredContent`): the echo writes what mcpgen writes and does the work any server answering the
 * call must do. Other tools are answered with an empty error result.
 *   node echo.mjs [--tools tools.json] [--tasks tasks.json] [--busy-ns N]
 *     tools.json    `{ server, tools }`, the 100-tool list to answer with
 *     tasks.json    the task store, oldest first (as mcpgen's store holds it)
 *     --busy-ns N   spins N ns of CPU per request before answering: how the limit's figures move when a
 *                   server does a little more work per request (the `echo-busy` peer of bench/run.mjs)
 */
import { readFileSync } from "node:fs";

const option = (name) => (process.argv.includes(name) ? readFileSync(process.argv[process.argv.indexOf(name) + 1], "utf8") : undefined);
const { server, tools } = JSON.parse(option("--tools") ?? '{"server":{"name":"bench-echo","version":"1.0.0"},"tools":[]}');
const tasks = option("--tasks");
/** id → task, in the order they were made (`--tasks`), or undefined. */
const TASKS = tasks === undefined ? undefined : new Map(JSON.parse(tasks).map((task) => [task.id, task]));
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
        members = structured({ sum: a + b });
      } else if (message.params.name === "list_tasks" && TASKS !== undefined) {
        const { status, tag, limit = 20 } = message.params.arguments;
        const matching = [...TASKS.values()].reverse().filter((t) => (!status || t.status === status) && (!tag || t.tags.includes(tag)));
        members = structured({ tasks: matching.slice(0, limit), total: matching.length });
      } else {
        members = `"content":[],"isError":true`;
      }
      out += modern ? `${head},"result":{"resultType":"complete",${members},${SERVER_META}}}\n` : `${head},"result":{${members}}}\n`;
    } else if (message.method === "tools/list") out += head + LIST + "\n";
    else if (message.method === "initialize") out += head + INITIALIZE + "\n";
    else out += `${head},"error":{"code":-32601,"message":"Method not found"}}\n`;
  }
  partial += chunk.slice(start);
  if (out !== "") process.stdout.write(out);
});

/** A structured result's members as mcpgen sends them: the value's JSON as a text block and as `structuredContent`. */
function structured(value) {
  const output = JSON.stringify(value);
  return `"content":[{"type":"text","text":${JSON.stringify(output)}}],"structuredContent":${output}`;
}
