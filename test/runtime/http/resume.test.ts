/**
 * Resumability (2025 era): a broken POST stream is resumed with GET + Last-Event-ID, and the in-memory event
 * store stays within its bounds.
 */
import { afterEach, describe, expect, it } from "vitest";
import { InMemoryEventStore } from "../../../packages/runtime/src/index.js";
import { assertServerMessage } from "../helpers/spec.js";
import { initialize, post, SseReader, start, stopAll, type Json } from "./helpers.js";

afterEach(stopAll);

const V = "2025-11-25";

describe("Last-Event-ID", () => {
  it("replays what a broken POST stream missed and carries on live until the response", async () => {
    const handle = await start();
    const session = await initialize(handle.url);
    const headers = { "mcp-session-id": session, "mcp-protocol-version": V };
    const response = await post(handle.url, { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "slow", arguments: { steps: 6, delayMs: 40 }, _meta: { progressToken: "t" } } }, headers);
    const first = new SseReader(response.body as ReadableStream<Uint8Array>);
    expect((await first.next())?.id).toBe("1_0"); // priming
    const one = await first.next();
    expect(one?.id).toBe("1_1");
    await first.cancel(); // the connection breaks after the first progress notification

    const resumed = await fetch(handle.url, { headers: { ...headers, accept: "text/event-stream", "last-event-id": "1_1" } });
    expect(resumed.status).toBe(200);
    const reader = new SseReader(resumed.body as ReadableStream<Uint8Array>);
    const events = [];
    for (let event = await reader.next(); event; event = await reader.next()) events.push(event);
    const messages = events.filter((e) => e.data !== "").map((e) => JSON.parse(e.data) as Json);
    messages.forEach((m) => assertServerMessage(m, V, { method: "id" in m ? "tools/call" : undefined }));
    expect(messages.map((m) => (m.params as Json | undefined)?.progress ?? m.id)).toEqual([2, 3, 4, 5, 6, 5]);
    expect(events.filter((e) => e.data !== "").map((e) => e.id)).toEqual(["1_2", "1_3", "1_4", "1_5", "1_6", "1_7"]);
    expect(handle.stats.exchanges).toBe(0);

    // once the response is out, the stream can still be replayed, and then it ends
    const again = await fetch(handle.url, { headers: { ...headers, accept: "text/event-stream", "last-event-id": "1_5" } });
    const replayed = [];
    const reader2 = new SseReader(again.body as ReadableStream<Uint8Array>);
    for (let event = await reader2.next(); event; event = await reader2.next()) replayed.push(event.id);
    expect(replayed).toEqual(["1_6", "1_7"]);
  });

  it("refuses unknown event ids and ids of another session", async () => {
    const handle = await start();
    const a = await initialize(handle.url);
    const b = await initialize(handle.url);
    const response = await post(handle.url, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow", arguments: { steps: 2, delayMs: 1 }, _meta: { progressToken: 1 } } }, { "mcp-session-id": a });
    await response.text();
    const unknown = await fetch(handle.url, { headers: { accept: "text/event-stream", "mcp-session-id": a, "last-event-id": "bogus" } });
    expect(unknown.status).toBe(400);
    await unknown.text();
    const foreign = await fetch(handle.url, { headers: { accept: "text/event-stream", "mcp-session-id": b, "last-event-id": "1_1" } });
    expect(foreign.status).toBe(400);
    await foreign.text();
  });
});

describe("InMemoryEventStore", () => {
  it("replays after an id, per stream", () => {
    const store = new InMemoryEventStore();
    store.append("s", "1", "1_1", "a");
    store.append("s", "2", "2_1", "x");
    store.append("s", "1", "1_2", "b");
    expect(store.replay("s", "1_1")).toEqual({ streamId: "1", events: [{ id: "1_2", message: "b" }] });
    expect(store.replay("s", "1_0")).toEqual({ streamId: "1", events: [{ id: "1_1", message: "a" }, { id: "1_2", message: "b" }] });
    expect(store.replay("other", "1_1")).toBeUndefined();
    expect(store.replay("s", "nonsense")).toBeUndefined();
  });

  it("stays within its size and per-stream limits, forgetting the oldest first", () => {
    const store = new InMemoryEventStore({ maxTotalSize: 1000, maxEventsPerStream: 5 });
    for (let i = 1; i <= 10_000; i++) store.append(`s${i % 7}`, String(i % 3), `${i % 3}_${i}`, "x".repeat(10));
    expect(store.stats.size).toBeLessThanOrEqual(1000);
    expect(store.stats.events).toBeLessThanOrEqual(100);
    // an id whose successors were forgotten is refused rather than replayed with a gap
    expect(store.replay("s1", "1_1")).toBeUndefined();
    for (let i = 0; i < 7; i++) store.dropSession(`s${i}`);
    expect(store.stats).toEqual({ events: 0, size: 0, sessions: 0 });
  });
});
