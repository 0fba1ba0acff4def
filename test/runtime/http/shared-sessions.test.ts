/**
 * 2025-era sessions shared by two instances in one process (A and B share a session store, an event store
 * and a bus, as instances behind a load balancer share Redis): the standalone stream moves between the
 * copies of a session without losing or repeating an event, the session record carries the log level, and
 * an instance restores no session past its `maxSessions`. test/state/sessions.test.ts runs the same
 * across processes on a real Redis.
 */
import { afterEach, describe, expect, it } from "vitest";
import { InMemoryEventStore, InMemorySessionStore, LocalBus, type Bus } from "../../../packages/runtime/src/index.js";
import { streamOfEventId } from "../../../packages/runtime/src/http/event-store.js";
import { until } from "../../helpers/wait.js";
import { initialize, messagesOf, post, SseReader, start, stopAll, type Json } from "./helpers.js";

afterEach(stopAll);

const V = "2025-11-25";

/** A bus whose deliveries the test can hold back and then let through, in publishing order. */
class GatedBus implements Bus {
  readonly #inner = new LocalBus();
  #held: [string, string][] | undefined;

  hold(): void {
    this.#held = [];
  }

  async flush(): Promise<void> {
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const [channel, message] of held) await this.#inner.publish(channel, message);
  }

  publish(channel: string, message: string): Promise<void> {
    if (!this.#held) return this.#inner.publish(channel, message);
    this.#held.push([channel, message]);
    return Promise.resolve();
  }

  subscribe(channel: string, onMessage: (message: string) => void) {
    return this.#inner.subscribe(channel, onMessage);
  }
}

/** Two instances sharing their state; `b` may take options of its own. */
async function pair(bOptions: { maxSessions?: number } = {}) {
  const shared = { sessionStore: new InMemorySessionStore(), eventStore: new InMemoryEventStore(), bus: new GatedBus() };
  const server = { bus: shared.bus };
  const a = await start({ ...shared, server });
  const b = await start({ ...shared, server, ...bOptions });
  return { a, b, ...shared };
}

const method = (event: { data: string }) => (event.data === "" ? "priming" : ((JSON.parse(event.data) as Json).method as string));
const streamOf = (event: { id?: string }) => streamOfEventId(event.id!)!;

/** A session initialized on `a`, its standalone stream open there: the stream, its id (from the priming event), the headers. */
async function streamOnA(a: { url: string }) {
  const session = await initialize(a.url, V);
  const headers = { "mcp-session-id": session, "mcp-protocol-version": V, accept: "text/event-stream" };
  const onA = new SseReader((await fetch(a.url, { headers })).body as ReadableStream<Uint8Array>);
  const primed = (await onA.next())!;
  return { session, headers, onA, primed: primed.id!, tagA: streamOf(primed) };
}

describe("a session shared by two instances", () => {
  it("resumes on B a standalone stream cut on A, re-sending what A kept under B's ids, and carries on there once", async () => {
    const { a, b, eventStore, bus } = await pair();
    const { session, headers, onA, primed, tagA } = await streamOnA(a);
    expect(primed).toMatch(/^[0-9a-f]{8}\.0_0$/); // A's copy tags its stream ids: no other copy reuses them
    a.transport.server.listChanged("tools");
    const first = (await onA.next())!;
    expect([first.id, method(first)]).toEqual([`${tagA}_1`, "notifications/tools/list_changed"]);
    await onA.cancel();
    await until(() => a.stats.streams === 0, { what: "A's stream closed" });

    // Published on B while the stream is down: A, which holds it, keeps them for a resume.
    b.transport.server.listChanged("tools");
    b.transport.server.listChanged("tools");
    await until(() => eventStore.stats.events === 3, { what: "A storing the events it could not send" });

    const onB = new SseReader((await fetch(b.url, { headers: { ...headers, "last-event-id": first.id! } })).body as ReadableStream<Uint8Array>);
    const resumed = [(await onB.next())!, (await onB.next())!, (await onB.next())!];
    const tagB = streamOf(resumed[0]!);
    expect(tagB).not.toBe(tagA);
    expect(resumed.map((event) => [event.id, method(event)])).toEqual([
      [`${tagB}_0`, "priming"],
      [`${tagB}_1`, "notifications/tools/list_changed"],
      [`${tagB}_2`, "notifications/tools/list_changed"],
    ]);

    // B holds the stream now: a change published anywhere reaches it once, and A stores nothing more.
    a.transport.server.listChanged("tools");
    const live = (await onB.next())!;
    expect([live.id, method(live)]).toEqual([`${tagB}_3`, "notifications/tools/list_changed"]);
    expect(eventStore.replay(session, `${tagA}_3`)).toEqual({ streamId: tagA, events: [] });

    // What A wrote after B read the store, before it heard of the takeover, B sends once A says it is done.
    eventStore.append(session, tagA, `${tagA}_4`, '{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}');
    await bus.publish(`session:${session}`, JSON.stringify({ k: "released", tag: tagA.slice(0, -1) }));
    const caught = (await onB.next())!;
    expect([caught.id, method(caught)]).toEqual([`${tagB}_4`, "notifications/prompts/list_changed"]);
    // Nothing twice: the next event is the next change, with the next id.
    b.transport.server.listChanged("tools");
    const marker = (await onB.next())!;
    expect([marker.id, method(marker)]).toEqual([`${tagB}_5`, "notifications/tools/list_changed"]);
    await onB.cancel();
  });

  it("writes a change published just before the takeover once: the old holder writes it, the new one leaves it", async () => {
    const { a, b, bus, eventStore } = await pair();
    const { session, headers, onA, tagA } = await streamOnA(a);
    await onA.cancel();
    await until(() => a.stats.streams === 0, { what: "A's stream closed" });

    // A change is published, then B takes the stream over and claims it; the bus delivers both only now, in
    // that order, as Redis would to every instance: B must not write the change A writes.
    bus.hold();
    a.transport.server.listChanged("tools");
    const onB = new SseReader((await fetch(b.url, { headers: { ...headers, "last-event-id": `${tagA}_0` } })).body as ReadableStream<Uint8Array>);
    const priming = (await onB.next())!;
    const tagB = streamOf(priming);
    expect(method(priming)).toBe("priming");
    await bus.flush();
    // What the delivery set off (A's release, B's catch-up) is promise work: it is all done by the next turn.
    await new Promise((resolve) => setImmediate(resolve));
    b.transport.server.listChanged("tools"); // a marker: the next change
    const events = [(await onB.next())!, (await onB.next())!];
    // The held change once (whoever wrote it), then the marker: nothing twice, on the wire or in the store.
    expect(events.map((event) => [event.id, method(event)])).toEqual([
      [`${tagB}_1`, "notifications/tools/list_changed"],
      [`${tagB}_2`, "notifications/tools/list_changed"],
    ]);
    expect(eventStore.replay(session, `${tagB}_0`)?.events.map((event) => event.id)).toEqual([`${tagB}_1`, `${tagB}_2`]);
    await onB.cancel();
  });

  it("keeps the log level in the session record, and every copy follows it", async () => {
    const { a, b, sessionStore } = await pair();
    const session = await initialize(a.url, V);
    const headers = { "mcp-session-id": session, "mcp-protocol-version": V };
    const set = await post(b.url, { jsonrpc: "2.0", id: 1, method: "logging/setLevel", params: { level: "error" } }, headers);
    expect(set.status).toBe(200);
    expect((await sessionStore.load(session))?.logLevel).toBe("error");
    // Set through B; the tool runs on A.
    const call = await post(a.url, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "log", arguments: {} } }, { ...headers, accept: "text/event-stream" });
    const messages = await messagesOf(call, V);
    const levels = messages.filter((m) => m.method === "notifications/message").map((m) => (m.params as Json).level);
    expect(levels).toEqual(["error"]);
  });

  it("restores no session past maxSessions, answering 503 with Retry-After", async () => {
    const { a, b } = await pair({ maxSessions: 1 });
    await initialize(b.url, V); // B is full
    const other = await initialize(a.url, V);
    const response = await post(b.url, { jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-session-id": other, "mcp-protocol-version": V });
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("5");
    // A still serves it.
    const onA = await post(a.url, { jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-session-id": other, "mcp-protocol-version": V });
    expect(onA.status).toBe(200);
  });
});
