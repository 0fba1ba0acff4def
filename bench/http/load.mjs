/**
 * A small closed-loop HTTP/1.1 load generator on raw keep-alive sockets (what autocannon does, without the
 * dependency): `connections` sockets, one request in flight on each, the same pre-serialized request again
 * and again for `ms` milliseconds. Responses are parsed just enough to find their end (Content-Length or
 * chunked, which is how SSE answers arrive) and checked for a 200 status and a JSON-RPC result.
 */
import { connect } from "node:net";

/** Serializes one POST. */
export function postBytes(url, body, headers) {
  const { host, pathname } = new URL(url);
  const lines = [`POST ${pathname} HTTP/1.1`, `host: ${host}`, "content-type: application/json", "accept: application/json, text/event-stream", `content-length: ${Buffer.byteLength(body)}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return Buffer.from(`${lines.join("\r\n")}\r\n\r\n${body}`);
}

/**
 * Runs the loop; resolves to { requests, errors, latenciesUs (sorted Float64Array), elapsedMs }.
 * `mark()` may be called by the caller to be told when the measured window starts (after `warmMs`).
 */
export function load(url, request, { connections, ms, warmMs = 0, onWindow }) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const latencies = [];
    let requests = 0;
    let errors = 0;
    let measuring = warmMs === 0;
    let windowStart = 0;
    let stopping = false;
    let open = 0;
    const sockets = [];
    const start = () => {
      measuring = true;
      windowStart = performance.now();
      onWindow?.("start");
      setTimeout(() => {
        stopping = true;
        onWindow?.("end");
        const elapsedMs = performance.now() - windowStart;
        for (const socket of sockets) socket.destroy();
        const sorted = Float64Array.from(latencies).sort();
        resolve({ requests, errors, latenciesUs: sorted, elapsedMs });
      }, ms);
    };
    for (let i = 0; i < connections; i++) {
      const socket = connect({ host: hostname, port: Number(port), noDelay: true });
      sockets.push(socket);
      let buffer = Buffer.alloc(0);
      let sent = 0;
      const fire = () => {
        if (stopping) return;
        sent = performance.now();
        socket.write(request);
      };
      socket.on("connect", () => {
        open++;
        fire();
      });
      socket.on("error", (error) => {
        if (!stopping) reject(error);
      });
      socket.on("data", (chunk) => {
        buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
        const end = responseEnd(buffer);
        if (end === -1) return;
        const response = buffer.subarray(0, end);
        buffer = buffer.subarray(end);
        if (measuring && !stopping) {
          const ok = response.subarray(9, 12).toString() === "200" && response.includes('"result"');
          if (ok) {
            requests++;
            latencies.push((performance.now() - sent) * 1000);
          } else errors++;
        }
        fire();
      });
    }
    if (warmMs > 0) setTimeout(start, warmMs);
    else start();
    void open;
  });
}

/** Where the first complete response in `buffer` ends, or -1. */
function responseEnd(buffer) {
  const head = buffer.indexOf("\r\n\r\n");
  if (head === -1) return -1;
  const headers = buffer.subarray(0, head).toString("latin1").toLowerCase();
  const length = /\r\ncontent-length:\s*(\d+)/.exec(headers);
  if (length) {
    const end = head + 4 + Number(length[1]);
    return buffer.length >= end ? end : -1;
  }
  if (headers.includes("transfer-encoding: chunked")) {
    const terminator = buffer.indexOf("\r\n0\r\n\r\n", head);
    if (terminator !== -1) return terminator + 7;
    // an empty chunked body
    return buffer.subarray(head + 4, head + 9).toString() === "0\r\n\r\n" ? head + 9 : -1;
  }
  return head + 4;
}
