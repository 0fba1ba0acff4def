/**
 * The node:http adapter on the wire: bad bytes on a connection never land inside a response that is under
 * way, and the requests before them are answered; a body over the limit ends in a 413 the client can read.
 * Raw sockets (node:net), fetch (undici) and node:http requests, all on 127.0.0.1.
 */
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ENVELOPE, until } from "../../helpers/wait.js";
import { FEW_CONNECTIONS, openConnections } from "../../../packages/runtime/src/http/node.js";
import { initialize, start, stopAll } from "./helpers.js";

afterEach(stopAll);

/** A raw connection that collects everything the server sends. */
class Raw {
  data = "";
  closed = false;
  private readonly socket: Socket;

  constructor(port: number) {
    this.socket = connect(port, "127.0.0.1");
    this.socket.setEncoding("latin1");
    this.socket.on("data", (chunk: string) => (this.data += chunk));
    this.socket.on("error", () => undefined);
    this.socket.on("close", () => (this.closed = true));
  }

  write(text: string): void {
    this.socket.write(text);
  }

  /** Writes and waits until the bytes are handed to the system: "ok", or the error's code. */
  send(text: string): Promise<string> {
    return new Promise((resolve) => {
      if (this.socket.destroyed) return resolve("destroyed");
      this.socket.write(text, (error) => resolve(error ? ((error as NodeJS.ErrnoException).code ?? error.message) : "ok"));
    });
  }

  /** Waits (bounded) until `condition` holds. */
  async until(condition: () => boolean, what: string, ms = 5000): Promise<void> {
    await until(condition, { timeoutMs: ms, what }).catch((error: Error) => {
      throw new Error(`${error.message}; received: ${JSON.stringify(this.data.slice(0, 2000))}`);
    });
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** A raw 2026-era POST of `message` to /mcp, with its Mcp-Method header and `headers` besides. */
function post(message: { jsonrpc: "2.0"; id: number; method: string; params: object }, headers: string[]): string {
  const body = JSON.stringify(message);
  return [
    "POST /mcp HTTP/1.1",
    "Host: 127.0.0.1",
    "Content-Type: application/json",
    "MCP-Protocol-Version: 2026-07-28",
    `Mcp-Method: ${message.method}`,
    ...headers,
    `Content-Length: ${Buffer.byteLength(body)}`,
    "",
    body,
  ].join("\r\n");
}

function discover(id: number, connection = "keep-alive"): string {
  return post({ jsonrpc: "2.0", id, method: "server/discover", params: { _meta: ENVELOPE } }, ["Accept: application/json, text/event-stream", `Connection: ${connection}`]);
}

/** A 2026-era `tools/call echo` on a keep-alive connection, with `meta` as its `_meta`, answered with JSON. */
function echoCall(id: number, meta: Record<string, unknown>): string {
  return post({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: { text: `call ${id}` }, _meta: meta } }, ["Accept: application/json", "Mcp-Name: echo"]);
}

const GARBAGE = "NOT HTTP AT ALL\r\n\r\n";

describe("answers written at the end of the event loop's turn", () => {
  it("go each to its own connection when many arrive at once", async () => {
    const handle = await start();
    const raws = Array.from({ length: 24 }, () => new Raw(handle.port));
    raws.forEach((raw, i) => raw.write(discover(100 + i, "close")));
    await Promise.all(raws.map((raw) => raw.until(() => raw.closed, "the answer")));
    raws.forEach((raw, i) => {
      expect([...raw.data.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((match) => match[1])).toEqual(["200"]);
      expect([...raw.data.matchAll(/"id":(\d+),/g)].map((match) => Number(match[1]))).toEqual([100 + i]);
    });
  });

  it("still go out while a test fakes setImmediate (the adapter keeps Node's own)", async () => {
    const handle = await start();
    // More connections than `FEW_CONNECTIONS`, so that answers arriving together may wait for the turn's end.
    const idle = Array.from({ length: FEW_CONNECTIONS + 1 }, () => new Raw(handle.port));
    await until(() => openConnections() > FEW_CONNECTIONS, { what: "the connections to open" });
    vi.useFakeTimers({ toFake: ["setImmediate"] });
    try {
      const raws = Array.from({ length: 4 }, () => new Raw(handle.port));
      raws.forEach((raw, i) => raw.write(discover(5 + i, "close")));
      await Promise.all(raws.map((raw) => raw.until(() => raw.closed, "the answer")));
      raws.forEach((raw, i) => expect(raw.data).toContain(`"id":${5 + i},`));
    } finally {
      vi.useRealTimers();
      for (const raw of idle) raw.destroy();
    }
  });

  it("counts the connections open (with few, answers go out at once), and forgets each once it closes", async () => {
    await until(() => openConnections() === 0, { what: "the earlier tests' connections closed" });
    const handle = await start();
    const raws = Array.from({ length: 3 }, () => new Raw(handle.port));
    await until(() => openConnections() === 3, { what: "three connections counted" });
    raws[0]?.write(discover(7, "close")); // closed by the server after its answer
    await raws[0]?.until(() => raws[0]?.closed === true, "the answer");
    await until(() => openConnections() === 2, { what: "the answered connection forgotten" });
    for (const raw of raws) raw.destroy(); // closed by the client
    await until(() => openConnections() === 0, { what: "every connection forgotten" });
  });
});

describe("2026-era requests on one keep-alive connection (its parser remembers the envelope)", () => {
  it("answers a repeated envelope every time and refuses an invalid one every time, in order", async () => {
    const handle = await start();
    const raw = new Raw(handle.port);
    const { "io.modelcontextprotocol/clientCapabilities": _capabilities, ...invalid } = ENVELOPE;
    const other = { ...ENVELOPE, "io.modelcontextprotocol/clientInfo": { name: "other", version: "2" } };
    const metas = [ENVELOPE, ENVELOPE, invalid, ENVELOPE, invalid, invalid, other, other, ENVELOPE, ENVELOPE];
    for (const [i, meta] of metas.entries()) {
      raw.write(echoCall(i + 1, meta));
      await raw.until(() => raw.data.includes(`"id":${i + 1},`), `the answer to request ${i + 1}`);
    }
    const answers = raw.data.split("HTTP/1.1 ").slice(1).map((response) => ({
      status: Number(response.slice(0, 3)),
      body: JSON.parse(response.slice(response.indexOf("\r\n\r\n") + 4)) as { id: number; result?: { content: { text: string }[] }; error?: { message: string } },
    }));
    expect(answers).toHaveLength(metas.length);
    for (const [i, { status, body }] of answers.entries()) {
      expect(body.id).toBe(i + 1);
      if (metas[i] === invalid) {
        expect(status).toBe(400);
        expect(body.error?.message).toBe('Invalid params: missing _meta["io.modelcontextprotocol/clientCapabilities"]');
      } else {
        expect(status).toBe(200);
        expect(body.result?.content[0]?.text).toBe(`call ${i + 1}`);
      }
    }
    raw.destroy();
  });
});

describe("bad bytes on a connection (clientError)", () => {
  it("answers pipelined requests first, in order, then refuses the bad bytes and closes", async () => {
    const handle = await start();
    const raw = new Raw(handle.port);
    raw.write(discover(1) + discover(2) + GARBAGE);
    await raw.until(() => raw.closed, "the connection to close");
    const statuses = [...raw.data.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((match) => match[1]);
    expect(statuses).toEqual(["200", "200", "400"]);
    const first = raw.data.indexOf('"id":1,');
    const second = raw.data.indexOf('"id":2,');
    expect(first).toBeGreaterThan(-1);
    expect(second).toBeGreaterThan(first);
    expect(raw.data.indexOf("HTTP/1.1 400")).toBeGreaterThan(second);
  });

  it("refuses only after Node wrote every answer, an earlier slow one's and a later quick one's held behind it", async () => {
    const handle = await start();
    const raw = new Raw(handle.port);
    const slow = post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow", arguments: { steps: 2, delayMs: 20 }, _meta: ENVELOPE } }, [
      "Accept: application/json",
      "Mcp-Name: slow",
    ]);
    raw.write(slow + discover(2) + GARBAGE);
    await raw.until(() => raw.closed, "the connection to close");
    expect([...raw.data.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((match) => match[1])).toEqual(["200", "200", "400"]);
    const first = raw.data.indexOf('"id":1,');
    const second = raw.data.indexOf('"id":2,');
    expect(first).toBeGreaterThan(-1);
    expect(second).toBeGreaterThan(first);
    expect(raw.data.indexOf("HTTP/1.1 400")).toBeGreaterThan(second);
  });

  it("writes nothing after a Connection: close response", async () => {
    const handle = await start();
    const raw = new Raw(handle.port);
    raw.write(discover(3, "close") + GARBAGE);
    await raw.until(() => raw.closed, "the connection to close");
    expect([...raw.data.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((match) => match[1])).toEqual(["200"]);
    expect(raw.data).toContain('"id":3,');
  });

  it("never writes into an open SSE stream: the stream goes on, the refusal follows its end", async () => {
    const handle = await start();
    const session = await initialize(handle.url);
    const raw = new Raw(handle.port);
    raw.write(
      ["GET /mcp HTTP/1.1", "Host: 127.0.0.1", "Accept: text/event-stream", `Mcp-Session-Id: ${session}`, "MCP-Protocol-Version: 2025-11-25", "", ""].join("\r\n"),
    );
    await raw.until(() => raw.data.includes("id: 0_0"), "the priming event");
    raw.write(GARBAGE);
    handle.transport.server.listChanged("tools");
    await raw.until(() => raw.data.includes("notifications/tools/list_changed") || raw.closed, "the notification");
    const ended = await fetch(handle.url, { method: "DELETE", headers: { "mcp-session-id": session } });
    expect(ended.status).toBe(200);
    await raw.until(() => raw.closed, "the connection to close");
    expect(raw.data).toContain("notifications/tools/list_changed");
    const end = raw.data.indexOf("\r\n0\r\n\r\n"); // the last chunk of the SSE body
    expect(end).toBeGreaterThan(-1);
    expect(raw.data.indexOf("HTTP/1.1 400")).toBeGreaterThan(end);
  });

  it("still answers a request whose body never arrives with 408", async () => {
    const handle = await start({ requestTimeoutMs: 300 });
    const raw = new Raw(handle.port);
    raw.write(discover(4).replace(/Content-Length: \d+/, "Content-Length: 100000"));
    await raw.until(() => raw.closed, "the connection to close");
    expect(raw.data).toMatch(/^HTTP\/1\.1 408 /);
  });
});

describe("a body over the limit", () => {
  const LIMIT = 1024 * 1024;
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", pad: "x".repeat(LIMIT + 4 * 1024 * 1024) });

  it("is read to its end before the 413, so a client that writes everything first gets the answer", async () => {
    const handle = await start({ maxBodyBytes: LIMIT });
    for (const framing of ["length", "chunked"] as const) {
      const raw = new Raw(handle.port);
      const head = ["POST /mcp HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json", "Accept: application/json"];
      raw.write([...head, framing === "length" ? `Content-Length: ${body.length}` : "Transfer-Encoding: chunked", "", ""].join("\r\n"));
      const piece = 256 * 1024;
      for (let at = 0; at < body.length; at += piece) {
        const chunk = body.slice(at, at + piece);
        const written = await raw.send(framing === "length" ? chunk : `${chunk.length.toString(16)}\r\n${chunk}\r\n`);
        expect(written, `${framing}: write at ${at}`).toBe("ok");
        expect(raw.data, `${framing}: answered while the body was still arriving`).toBe("");
      }
      if (framing === "chunked") expect(await raw.send("0\r\n\r\n")).toBe("ok");
      await raw.until(() => raw.data.includes("Payload Too Large"), "the 413");
      expect(raw.data).toMatch(/^HTTP\/1\.1 413 /);
      raw.destroy();
    }
  });

  it("is not read at all when its declared length is far past any bound: 413 at once, then close", async () => {
    const handle = await start({ maxBodyBytes: LIMIT });
    const raw = new Raw(handle.port);
    raw.write(["POST /mcp HTTP/1.1", "Host: 127.0.0.1", "Content-Type: application/json", "Accept: application/json", `Content-Length: ${64 * 1024 * 1024 * 1024}`, "", ""].join("\r\n"));
    await raw.until(() => raw.closed, "the connection to close");
    expect(raw.data).toMatch(/^HTTP\/1\.1 413 /);
  });

  it("reaches fetch as a 413, however the body is sent", async () => {
    const handle = await start({ maxBodyBytes: LIMIT });
    for (let round = 0; round < 3; round++) {
      const response = await fetch(handle.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json" }, body });
      expect(response.status).toBe(413);
      expect(await response.json()).toMatchObject({ error: { message: expect.stringContaining("Payload Too Large") } });
    }
    // a streamed body (chunked, no Content-Length)
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        const bytes = new TextEncoder().encode(body);
        for (let at = 0; at < bytes.length; at += 64 * 1024) controller.enqueue(bytes.subarray(at, at + 64 * 1024));
        controller.close();
      },
    });
    const streamed = await fetch(handle.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json" }, body: chunks, duplex: "half" } as RequestInit);
    expect(streamed.status).toBe(413);
  });

  it("reaches a node:http request as a 413", async () => {
    const handle = await start({ maxBodyBytes: LIMIT });
    for (let round = 0; round < 3; round++) {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(handle.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        });
        req.on("error", reject);
        req.end(body);
      });
      expect(status).toBe(413);
    }
  });
});
