/**
 * Bad traffic never takes the server down or makes it hold on to things: malformed JSON, oversized bodies,
 * batches, slowloris bodies, abrupt disconnects mid-stream and thousands of sessions created and dropped.
 * Afterwards the server still answers and its tables are back to size. Loopback only; every loop is bounded.
 */
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { InMemoryEventStore } from "../../../packages/runtime/src/index.js";
import { until, within } from "../../helpers/wait.js";
import { initialize, messagesOf, modern, post, SseReader, start, stopAll } from "./helpers.js";

afterEach(stopAll);

const V = "2025-11-25";

async function stillServes(url: string): Promise<void> {
  const response = await modern(url, 1, "tools/call", { name: "echo", arguments: { text: "alive" } });
  expect(response.status).toBe(200);
  expect((await messagesOf(response, "2026-07-28", "tools/call"))[0]).toMatchObject({ result: { content: [{ text: "alive" }] } });
}

/** Opens a raw TCP connection and writes `head` (and nothing more, unless told). */
function rawSocket(port: number, head: string): Promise<{ socket: Socket; closed: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.write(head);
      resolve({ socket, closed });
    });
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (received += chunk));
    const closed = new Promise<string>((done) => socket.on("close", () => done(received)));
    socket.on("error", reject);
  });
}

describe("bad traffic", () => {
  it("survives malformed JSON, oversized and chunked bodies, and batches", async () => {
    const handle = await start({ maxBodyBytes: 64 * 1024 });
    const session = await initialize(handle.url);
    const garbage = ["", "{", "[", "null", "42", '"x"', "[]", "[[]]", '{"jsonrpc":"2.0"}', '{"jsonrpc":"2.0","id":{},"method":"ping"}', "\u0000\u0001", "{".repeat(10_000)];
    for (const body of garbage) {
      for (const headers of [{}, { "mcp-session-id": session }, { "mcp-protocol-version": "2026-07-28" }]) {
        const response = await post(handle.url, body, headers);
        expect(response.status, `${JSON.stringify(body.slice(0, 20))} ${JSON.stringify(headers)}`).toBeGreaterThanOrEqual(200);
        expect(response.status).toBeLessThan(500);
        await response.text();
      }
    }
    // declared too large, and too large without a declared length (chunked)
    const declared = await post(handle.url, "x".repeat(100 * 1024));
    expect(declared.status).toBe(413);
    await declared.text();
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 100; i++) controller.enqueue(new TextEncoder().encode("x".repeat(1024)));
        controller.close();
      },
    });
    const chunked = await fetch(handle.url, { method: "POST", headers: { "content-type": "application/json" }, body: chunks, duplex: "half" } as RequestInit);
    expect(chunked.status).toBe(413);
    await chunked.text();
    // batches: fine in a 2025 session, refused in the 2026 era
    const batch = await post(handle.url, Array.from({ length: 50 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" })), { "mcp-session-id": session });
    expect(batch.status).toBe(200);
    expect(await messagesOf(batch, V, "ping")).toHaveLength(50);
    const modernBatch = await post(handle.url, [{ jsonrpc: "2.0", id: 1, method: "tools/list" }], { "mcp-protocol-version": "2026-07-28" });
    expect(modernBatch.status).toBe(400);
    await modernBatch.text();
    await stillServes(handle.url);
    expect(handle.stats.sessions).toBe(1);
  });

  it("drops slowloris connections after the request timeout while serving everyone else", async () => {
    const handle = await start({ requestTimeoutMs: 500 });
    const slow = await Promise.all(
      Array.from({ length: 20 }, () =>
        rawSocket(handle.port, `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":`),
      ),
    );
    const headersOnly = await rawSocket(handle.port, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    await stillServes(handle.url);
    const started = Date.now();
    const answers = await within(Promise.all([...slow, headersOnly].map((s) => s.closed)), { timeoutMs: 5000, what: "the slow connections to be closed" });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(answers[0]).toMatch(/^HTTP\/1\.1 408/);
    await stillServes(handle.url);
  });

  it("forgets requests whose clients vanish mid-stream, in both eras", async () => {
    const handle = await start({ eventStore: new InMemoryEventStore({ maxTotalSize: 256 * 1024 }) });
    const session = await initialize(handle.url);
    for (let round = 0; round < 5; round++) {
      const streams = await Promise.all([
        ...Array.from({ length: 10 }, (_, i) =>
          modern(handle.url, i, "tools/call", { name: "slow", arguments: { steps: 100_000, delayMs: 10 }, _meta: { progressToken: i } }),
        ),
        ...Array.from({ length: 10 }, (_, i) =>
          post(handle.url, { jsonrpc: "2.0", id: `${round}-${i}`, method: "tools/call", params: { name: "slow", arguments: { steps: 20, delayMs: 5 }, _meta: { progressToken: i } } }, { "mcp-session-id": session }),
        ),
      ]);
      const readers = streams.map((response) => new SseReader(response.body as ReadableStream<Uint8Array>));
      await Promise.all(readers.map((reader) => reader.next()));
      await Promise.all(readers.map((reader) => reader.cancel())); // abrupt: the sockets go away mid-stream
    }
    // 2026 requests are cancelled by the disconnect; 2025 ones run to completion (disconnect is not cancel)
    await until(() => handle.stats.exchanges === 0, { timeoutMs: 4000, what: "every abandoned request to end" });
    expect(handle.stats.sessions).toBe(1);
    await stillServes(handle.url);
  });

  it("creates and drops thousands of sessions and ends up where it started", { timeout: 60_000 }, async () => {
    const store = new InMemoryEventStore();
    let now = 0; // the sessions' clock: none expires while they are made, however long that takes
    const handle = await start({ sessionIdleMs: 200, maxSessions: 5000, eventStore: store, clock: () => now });
    const ids: string[] = [];
    let peak = 0;
    for (let batch = 0; batch < 20; batch++) {
      ids.push(...(await Promise.all(Array.from({ length: 100 }, () => initialize(handle.url)))));
      peak = Math.max(peak, handle.stats.sessions);
    }
    expect(new Set(ids).size).toBe(2000);
    expect(peak).toBe(2000);
    // some sessions stream something, so the event store holds data for them
    await Promise.all(
      ids.slice(-300).map(async (id) => {
        const response = await post(handle.url, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow", arguments: { steps: 1, delayMs: 1 }, _meta: { progressToken: 1 } } }, { "mcp-session-id": id });
        await response.text();
      }),
    );
    expect(store.stats.sessions).toBeGreaterThan(0);
    // half are deleted, the rest are abandoned and expire
    for (let i = 0; i < 1000; i += 100) {
      const statuses = await Promise.all(ids.slice(i, i + 100).map(async (id) => (await fetch(handle.url, { method: "DELETE", headers: { "mcp-session-id": id } })).status));
      expect(statuses).toEqual(Array(100).fill(200));
    }
    expect(handle.stats.sessions).toBe(1000);
    now += 10_000;
    await until(() => handle.stats.sessions === 0, { timeoutMs: 10_000, what: "the abandoned sessions to expire" });
    expect(handle.stats).toEqual({ sessions: 0, streams: 0, exchanges: 0 });
    expect(store.stats).toEqual({ events: 0, size: 0, sessions: 0 });
    await stillServes(handle.url);
  });
});
