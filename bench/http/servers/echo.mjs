/**
 * Peer: the limit. A bare `node:http` echo: parses the JSON-RPC body and answers it as a `tools/call add`
 * with its id: the sum of its `a` and `b` arguments serialized as mcpgen answers it (the JSON text block and
 * `structuredContent`), as the stdio echo does, with no MCP machinery and no validation. The physical limit
 * of this machine, this HTTP stack and this load generator. A request whose `_meta` names the 2026-07-28
 * protocol is answered the 2026 way, as mcpgen answers it (`"resultType":"complete"` first, the server's name
 * and version in the result's `_meta`), without checking the rest of the envelope or the headers.
 *   node echo.mjs [--mode json|sse] [--server-info JSON] [--busy-us N]
 * --server-info  `{ name, version }` for 2026-era results (the example's, which mcpgen sends)
 * json  `content-type: application/json` with a Content-Length, as mcpgen answers in JSON mode
 * sse   the answer as one Server-Sent Event on a chunked `text/event-stream` response, with the headers and
 *       the `event: message\ndata: …\n\n` framing mcpgen's SSE responses have: the bare way to do what mcpgen does
 * --busy-us N   spins N µs of CPU per request before answering: how the limit moves when a server does a
 *               little more work per request (the `echo-busy` peer of bench/http/run.mjs)
 * --batch       with more than 8 connections open, writes the answers of one burst of work together at its end
 *               (`setImmediate`) once a burst gives more than one, as mcpgen's node:http adapter does: the limit
 *               with the same write scheduling (the `echo-batched` peer)
 * --core <server.gen.js>   the answer made by mcpgen's core instead (`connection.handle` of the example's
 *               server: the method table, input and output validation, the handler, the result's text), each
 *               connection's bodies parsed by one `MessageParser` as mcpgen's adapter does, the era told by the
 *               `MCP-Protocol-Version` header; the rest is the echo's. Of mcpgen's distance to the limit, how
 *               much is its core and how much the transport and adapter around it (the `echo-core` peer)
 *
 * For the 10,000-session row it opens sessions the bare way: an `initialize` answer carries a new
 * `mcp-session-id` (nothing is kept of it), a notification gets 202, and a GET opens a `text/event-stream`
 * that stays open, with a keep-alive comment every 15 s as mcpgen sends.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { flag, ready } from "./common.mjs";

const sse = (flag("--mode") ?? "json") === "sse";
const busyMs = Number(flag("--busy-us") ?? 0) / 1000;
const batched = process.argv.includes("--batch");
const MODERN = "2026-07-28";
const SERVER_META = `"_meta":${JSON.stringify({ "io.modelcontextprotocol/serverInfo": JSON.parse(flag("--server-info") ?? '{"name":"bench-echo","version":"1.0.0"}') })}`;
const core = flag("--core") === undefined ? undefined : await coreOf(flag("--core"));

/** --core: answers a request's text through mcpgen's core; `done(message, response text)`. */
async function coreOf(entry) {
  const { createServer: createMcpServer, MessageParser, tuneHeap } = await import("@mcpgen/runtime");
  tuneHeap(await import("node:v8")); // the heap sizing mcpgen's server runs with
  const { registry } = await import(pathToFileURL(path.join(path.dirname(entry), "registry.gen.js")).href);
  const server = createMcpServer(registry);
  await server.ready;
  const NO_SINK = { send: () => undefined };
  const session = server.connect(NO_SINK, { ephemeral: true, session: { protocolVersion: "2025-11-25" } });
  const PARSER = Symbol("parser");
  return (req, text, done) => {
    const message = (req.socket[PARSER] ??= new MessageParser()).parse(text);
    if (message.id === undefined) return done(message, undefined);
    // 2026 era: a connection per request, as mcpgen's transport makes one; 2025: the one session.
    const connection = req.headers["mcp-protocol-version"] === MODERN ? server.connect(NO_SINK, { ephemeral: true }) : session;
    const reply = connection.handle(message, NO_SINK);
    if (typeof reply !== "object") done(message, reply);
    else if (typeof reply.whenAnswered === "function") reply.whenAnswered((response) => done(message, response));
    else reply.then((response) => done(message, response));
  };
}
// --batch: mcpgen's rule (packages/runtime/src/http/node.ts, Turn): with at most 2 connections open every
// answer is written at once; with more, an answer is written at once when the event loop has waited for I/O
// since the last one written at once (its idle time moved), and from a burst's second answer on, answers wait
// for the turn's end, until a batch holds one.
const FEW_CONNECTIONS = 2;
let connections = 0;
let batching = false;
let lastIdle = -1;
let answers = [];
const writeAnswers = () => {
  const now = answers;
  answers = [];
  batching = now.length > 1;
  for (const write of now) write();
};
const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" };
const KEEP_ALIVE_MS = 15_000;
const http = createServer((req, res) => {
  if (req.method === "GET") {
    res.writeHead(200, SSE_HEADERS);
    res.flushHeaders();
    const keepAlive = setInterval(() => res.write(": keep-alive\n\n"), KEEP_ALIVE_MS).unref();
    res.on("close", () => clearInterval(keepAlive));
    return;
  }
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    const text = Buffer.concat(chunks).toString("utf8");
    if (core) return core(req, text, (message, body) => (body === undefined ? void res.writeHead(202).end() : answer(res, message, body)));
    let message;
    try {
      message = JSON.parse(text);
    } catch {
      // not JSON: answer anyway
    }
    if (message !== undefined && message.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    if (busyMs > 0) for (const until = performance.now() + busyMs; performance.now() < until; );
    const args = message?.params?.arguments;
    const output = JSON.stringify({ sum: args?.a + args?.b });
    const members = `"content":[{"type":"text","text":${JSON.stringify(output)}}],"structuredContent":${output}`;
    const modern = message?.params?._meta?.["io.modelcontextprotocol/protocolVersion"] === MODERN;
    const result = modern ? `{"resultType":"complete",${members},${SERVER_META}}` : `{${members}}`;
    answer(res, message, `{"jsonrpc":"2.0","id":${JSON.stringify(message?.id ?? null)},"result":${result}}`);
  });
});

/** Writes a JSON-RPC response `body` to `message` (JSON or SSE), at once or with the turn's others (--batch). */
function answer(res, message, body) {
  const write = () => {
    if (sse) {
      res.writeHead(200, SSE_HEADERS);
      res.write(`event: message\ndata: ${body}\n\n`);
      res.end();
    } else {
      const headers = { "content-type": "application/json", "content-length": Buffer.byteLength(body) };
      res.writeHead(200, message?.method === "initialize" ? { ...headers, "mcp-session-id": randomUUID() } : headers);
      res.end(body);
    }
  };
  if (!batched || connections <= FEW_CONNECTIONS) return write();
  if (!batching) {
    const idle = performance.nodeTiming.idleTime;
    if (idle !== lastIdle) {
      lastIdle = idle;
      return write();
    }
  }
  batching = true;
  answers.push(write);
  if (answers.length === 1) setImmediate(writeAnswers);
}
if (batched) {
  http.on("connection", (socket) => {
    connections++;
    socket.once("close", () => connections--);
  });
}
http.listen(0, "127.0.0.1", () => ready(`http://127.0.0.1:${http.address().port}/mcp`));
