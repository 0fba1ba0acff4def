/**
 * Peer: a bare `node:http` JSON echo: parses the JSON-RPC body and answers a canned `tools/call` result with
 * its id. The physical limit of this machine, this HTTP stack and this load generator.
 */
import { createServer } from "node:http";
import { ready } from "./common.mjs";

const RESULT = JSON.stringify({ content: [{ type: "text", text: '{"sum":5}' }], structuredContent: { sum: 5 } });
const http = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    let id = null;
    try {
      id = JSON.parse(Buffer.concat(chunks).toString("utf8")).id ?? null;
    } catch {
      // not JSON: answer anyway
    }
    const body = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${RESULT}}`;
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body), "mcp-session-id": "echo" });
    res.end(body);
  });
});
http.listen(0, "127.0.0.1", () => ready(`http://127.0.0.1:${http.address().port}/mcp`));
