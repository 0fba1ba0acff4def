/**
 * Resumability (2025 era): a broken POST stream is resumed with GET + Last-Event-ID, and the in-memory event
 * store stays within its bounds.
 */
import { afterEach, describe, expect, it } from "vitest";
import { InMemoryEventStore } from "../../../packages/runtime/src/index.js";
import { assertServerMessage } from "../helpers/spec.js";
import { until } from "../../helpers/wait.js";
import { initialize, post, SseReader, start, stopAll, type Json, type SseEvent } from "./helpers.js";

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
    expect(foreign.status).toBe(410);
    expect(await foreign.json()).toMatchObject({ error: { code: -32000, message: expect.stringContaining("no longer kept") } });
  });

  it("answers 410 for ids whose events are no longer kept or were never sent, and replays before priming", async () => {
    const handle = await start();
    const session = await initialize(handle.url);
    const headers = { "mcp-session-id": session, "mcp-protocol-version": V, accept: "text/event-stream" };
    const get = await fetch(handle.url, { headers });
    const standalone = new SseReader(get.body as ReadableStream<Uint8Array>);
    expect((await standalone.next())?.id).toBe("0_0");
    await standalone.cancel();
    await until(() => handle.stats.streams === 0);
    for (let i = 0; i < 1010; i++) handle.transport.server.listChanged("tools"); // 1,000 of them are kept

    for (const lost of ["0_2", "0_9", "0_5000", "7_1"]) {
      const response = await fetch(handle.url, { headers: { ...headers, "last-event-id": lost } });
      expect(response.status, lost).toBe(410);
      expect(await response.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
    }
    const oldest = await readAll(await fetch(handle.url, { headers: { ...headers, "last-event-id": "0_10" } }), 1001);
    expect(oldest.map((event) => event.id)).toEqual([...Array.from({ length: 1000 }, (_, i) => `0_${i + 11}`), "0_1010"]);

    const resumed = await readAll(await fetch(handle.url, { headers: { ...headers, "last-event-id": "0_1007" } }), 4);
    expect(resumed.map((event) => [event.id, event.data === "" ? "priming" : (JSON.parse(event.data) as Json).method])).toEqual([
      ["0_1008", "notifications/tools/list_changed"],
      ["0_1009", "notifications/tools/list_changed"],
      ["0_1010", "notifications/tools/list_changed"],
      ["0_1010", "priming"],
    ]);
    expect(resumed[3]?.retry).toBe(1000);
  });

  it("answers 410 to any Last-Event-ID when it keeps no events, rather than a fresh stream", async () => {
    const handle = await start({ eventStore: false });
    const session = await initialize(handle.url);
    const headers = { "mcp-session-id": session, "mcp-protocol-version": V, accept: "text/event-stream" };
    const resumed = await fetch(handle.url, { headers: { ...headers, "last-event-id": "0_0" } });
    expect(resumed.status).toBe(410);
    await resumed.text();
    const fresh = await fetch(handle.url, { headers });
    expect(fresh.status).toBe(200);
    await fresh.body?.cancel();
  });

  it("stores what the standalone stream missed while it was down and replays it on resume", async () => {
    const handle = await start();
    const session = await initialize(handle.url);
    const headers = { "mcp-session-id": session, "mcp-protocol-version": V, accept: "text/event-stream" };
    const first = new SseReader((await fetch(handle.url, { headers })).body as ReadableStream<Uint8Array>);
    expect((await first.next())?.id).toBe("0_0");
    handle.transport.server.listChanged("tools");
    expect((await first.next())?.id).toBe("0_1");
    await first.cancel();
    await until(() => handle.stats.streams === 0);
    handle.transport.server.listChanged("tools");
    handle.transport.server.listChanged("tools");

    const events = await readAll(await fetch(handle.url, { headers: { ...headers, "last-event-id": "0_1" } }), 3);
    expect(events.map((event) => event.id)).toEqual(["0_2", "0_3", "0_3"]);
    expect(events.slice(0, 2).map((event) => (JSON.parse(event.data) as Json).method)).toEqual(["notifications/tools/list_changed", "notifications/tools/list_changed"]);
  });

  it("ends the original POST stream when a resume takes over while it is still open", async () => {
    const handle = await start();
    const session = await initialize(handle.url);
    const headers = { "mcp-session-id": session, "mcp-protocol-version": V };
    const response = await post(handle.url, { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "slow", arguments: { steps: 20, delayMs: 50 }, _meta: { progressToken: "t" } } }, headers);
    const original = new SseReader(response.body as ReadableStream<Uint8Array>);
    expect((await original.next())?.id).toBe("1_0");
    expect((await original.next())?.id).toBe("1_1");

    const resumed = await fetch(handle.url, { headers: { ...headers, accept: "text/event-stream", "last-event-id": "1_1" } });
    expect(resumed.status).toBe(200);
    // the original stream ends at once (whatever it still carried is replayed on the new one), long before the call ends
    const started = Date.now();
    await original.rest(2000);
    expect(Date.now() - started).toBeLessThan(800);

    const reader = new SseReader(resumed.body as ReadableStream<Uint8Array>);
    const ids: (string | undefined)[] = [];
    for (let event = await reader.next(); event; event = await reader.next()) ids.push(event.id);
    expect(ids).toEqual(Array.from({ length: 20 }, (_, i) => `1_${i + 2}`));
  });
});


/** Reads `count` events of an SSE response (keep-alive comments skipped), then cancels it. */
async function readAll(response: Response, count: number): Promise<SseEvent[]> {
  expect(response.status).toBe(200);
  const reader = new SseReader(response.body as ReadableStream<Uint8Array>);
  const events: SseEvent[] = [];
  while (events.length < count) {
    const event = await reader.next();
    if (!event) break;
    if (event.event !== "comment") events.push(event);
  }
  await reader.cancel();
  return events;
}

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
