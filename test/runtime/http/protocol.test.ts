/**
 * The Streamable HTTP rules, request by request, with raw `fetch` on 127.0.0.1: 2025-era sessions, the GET
 * stream, DELETE and expiry; 2026-era header checks, status codes, cancellation and `subscriptions/listen`;
 * the secure defaults. Every JSON-RPC message in a response is checked against the spec.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createHttpHandler, createServer } from "../../../packages/runtime/src/index.js";
import { registry } from "../helpers/fixtures.js";
import { assertServerMessage } from "../helpers/spec.js";
import { ENVELOPE, until, within } from "../../helpers/wait.js";
import { initialize, messagesOf, modern, parseSse, post, SseReader, start, stopAll, type Json } from "./helpers.js";

afterEach(stopAll);

const V = "2025-11-25";

function call(id: number, name: string, args: Json = {}): Json {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}

describe("2025 era: sessions", () => {
  it("needs the session header after initialize: missing → 400, unknown → 404", async () => {
    const { url } = await start();
    const session = await initialize(url);
    const missing = await post(url, call(1, "echo", { text: "x" }), { "mcp-protocol-version": V });
    expect(missing.status).toBe(400);
    expect((await messagesOf(missing, V))[0]).toMatchObject({ error: { code: -32000, message: expect.stringContaining("Mcp-Session-Id") } });
    const unknown = await post(url, call(1, "echo", { text: "x" }), { "mcp-session-id": "not-a-session", "mcp-protocol-version": V });
    expect(unknown.status).toBe(404);
    expect((await messagesOf(unknown, V))[0]).toMatchObject({ error: { code: -32001 } });
    const ok = await post(url, call(2, "echo", { text: "x" }), { "mcp-session-id": session, "mcp-protocol-version": V });
    expect(ok.status).toBe(200);
    expect(await messagesOf(ok, V, "tools/call")).toEqual([{ jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "x" }] } }]);
  });

  it("checks MCP-Protocol-Version: an unsupported one → 400", async () => {
    const { url } = await start();
    const session = await initialize(url);
    const response = await post(url, call(1, "echo", { text: "x" }), { "mcp-session-id": session, "mcp-protocol-version": "1999-01-01" });
    expect(response.status).toBe(400);
    await messagesOf(response, V);
  });

  it("refuses a body whose _meta claims another protocol version than the session's header (400, -32020)", async () => {
    const { url } = await start();
    const session = await initialize(url, "2025-06-18");
    const claim = { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } };
    const response = await post(url, { jsonrpc: "2.0", id: 4, method: "tools/list", params: claim }, { "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" });
    expect(response.status).toBe(400);
    const [error] = await messagesOf(response, "2025-06-18");
    expect(error).toMatchObject({ id: 4, error: { code: -32020, message: expect.stringMatching(/'2025-06-18'.*'2026-07-28'/) } });
    // without the header (a 2025-03-26 client), the session's own version is the one the body must agree with
    const old = await initialize(url, "2025-03-26");
    const batch = await post(url, [{ jsonrpc: "2.0", id: 5, method: "tools/list", params: claim }], { "mcp-session-id": old });
    expect(batch.status).toBe(400);
    expect((await messagesOf(batch, "2025-03-26"))[0]).toMatchObject({ id: 5, error: { code: -32020, message: expect.stringMatching(/'2025-03-26'.*'2026-07-28'/) } });
    // a claim that agrees is just metadata
    const agreeing = await post(url, { jsonrpc: "2.0", id: 6, method: "tools/list", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2025-06-18" } } }, { "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" });
    expect(agreeing.status).toBe(200);
    expect((await messagesOf(agreeing, "2025-06-18", "tools/list"))[0]).toMatchObject({ id: 6, result: { tools: expect.any(Array) } });
  });

  it("mints distinct random session ids and answers notifications and responses with 202", async () => {
    const { url } = await start();
    const ids = new Set(await Promise.all(Array.from({ length: 20 }, () => initialize(url))));
    expect(ids.size).toBe(20);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const [session] = ids;
    const note = await post(url, { jsonrpc: "2.0", method: "notifications/roots/list_changed" }, { "mcp-session-id": session as string });
    expect(note.status).toBe(202);
    expect(await note.text()).toBe("");
  });

  it("answers a batch (2025-03-26) in one response", async () => {
    const { url } = await start();
    const session = await initialize(url, "2025-03-26");
    const response = await post(url, [call(1, "echo", { text: "a" }), { jsonrpc: "2.0", method: "notifications/initialized" }, call(2, "add", { a: 1, b: 2 })], {
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-03-26",
    });
    expect(response.status).toBe(200);
    const answers = await messagesOf(response, "2025-03-26", "tools/call");
    expect(answers.map((m) => m.id)).toEqual([1, 2]);
  });

  it("streams progress on the POST's own SSE stream, primed for resumption", async () => {
    const { url } = await start();
    const session = await initialize(url);
    const response = await post(url, { ...call(7, "slow", { steps: 2, delayMs: 1 }), params: { name: "slow", arguments: { steps: 2, delayMs: 1 }, _meta: { progressToken: "p" } } }, {
      "mcp-session-id": session,
      "mcp-protocol-version": V,
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = new SseReader(response.body as ReadableStream<Uint8Array>);
    const priming = await reader.next();
    expect(priming).toMatchObject({ id: "1_0", data: "", retry: 1000 });
    const events = [];
    for (let event = await reader.next(); event; event = await reader.next()) events.push(event);
    expect(events.map((e) => e.id)).toEqual(["1_1", "1_2", "1_3"]);
    const messages = events.map((e) => JSON.parse(e.data) as Json);
    messages.forEach((m, i) => assertServerMessage(m, V, { method: i === 2 ? "tools/call" : undefined }));
    expect(messages.map((m) => m.method ?? m.id)).toEqual(["notifications/progress", "notifications/progress", 7]);
  });

  it("in SSE response mode, answers a quick call as one whole stream and opens a primed stream at once", async () => {
    const { url } = await start({ responseMode: "sse" });
    const session = await initialize(url);
    const headers = { "mcp-session-id": session, "mcp-protocol-version": V };
    const quick = await post(url, call(2, "add", { a: 1, b: 2 }), headers);
    expect(quick.headers.get("content-type")).toBe("text/event-stream");
    const events = parseSse(await quick.text());
    expect(events[0]).toMatchObject({ data: "", id: expect.stringMatching(/_0$/) }); // primed for resumption
    expect(events.slice(1).map((e) => JSON.parse(e.data) as Json)).toMatchObject([{ id: 2, result: { structuredContent: { sum: 3 } } }]);
    // A call that runs on: its headers and priming event come at once, so that a broken stream can be resumed.
    const slow = await within(post(url, call(3, "slow", { steps: 10_000, delayMs: 5 }), headers), { what: "the primed stream's headers" });
    const reader = new SseReader(slow.body as ReadableStream<Uint8Array>);
    expect(await within(reader.next(), { what: "the priming event" })).toMatchObject({ data: "", id: expect.stringMatching(/_0$/) });
    await reader.cancel();
  });

  it("in SSE response mode without an event store, answers with the result's event alone", async () => {
    const { url } = await start({ responseMode: "sse", eventStore: false });
    const session = await initialize(url);
    const response = await post(url, call(4, "echo", { text: "hi" }), { "mcp-session-id": session, "mcp-protocol-version": V });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const events = parseSse(await response.text());
    expect(events).toHaveLength(1);
    expect(JSON.parse((events[0] as { data: string }).data)).toMatchObject({ id: 4, result: { content: [{ type: "text", text: "hi" }] } });
  });

  it("opens one standalone GET stream per session (a second one → 409), with keep-alives", async () => {
    const { url } = await start({ keepAliveMs: 20 });
    const session = await initialize(url);
    const get = await fetch(url, { headers: { accept: "text/event-stream", "mcp-session-id": session, "mcp-protocol-version": V } });
    expect(get.status).toBe(200);
    expect(get.headers.get("content-type")).toBe("text/event-stream");
    const reader = new SseReader(get.body as ReadableStream<Uint8Array>);
    expect((await reader.next())?.data).toBe(""); // priming
    expect((await reader.next())?.event).toBe("comment");
    const second = await fetch(url, { headers: { accept: "text/event-stream", "mcp-session-id": session } });
    expect(second.status).toBe(409);
    await second.text();
    const wrongAccept = await fetch(url, { headers: { accept: "application/json", "mcp-session-id": session } });
    expect(wrongAccept.status).toBe(406);
    await wrongAccept.text();
    await reader.cancel();
  });

  it("sends a standalone stream's headers at once when no event goes with them (no event store, no priming)", async () => {
    const { url } = await start({ eventStore: false, keepAliveMs: 60_000 });
    const session = await initialize(url);
    // fetch resolves on the response headers: they must not wait for the first event or keep-alive.
    const get = await within(fetch(url, { headers: { accept: "text/event-stream", "mcp-session-id": session, "mcp-protocol-version": V } }), {
      what: "the standalone stream's headers",
    });
    expect(get.status).toBe(200);
    await get.body?.cancel();
  });

  it("DELETE ends the session: its streams close, later requests get 404", async () => {
    const handle = await start();
    const session = await initialize(handle.url);
    const get = await fetch(handle.url, { headers: { accept: "text/event-stream", "mcp-session-id": session } });
    const reader = new SseReader(get.body as ReadableStream<Uint8Array>);
    expect(handle.stats).toMatchObject({ sessions: 1, streams: 1 });
    const deleted = await fetch(handle.url, { method: "DELETE", headers: { "mcp-session-id": session } });
    expect(deleted.status).toBe(200);
    await reader.next(); // priming
    expect(await reader.rest(2000)).toEqual([]);
    expect(handle.stats).toMatchObject({ sessions: 0, streams: 0 });
    const after = await post(handle.url, call(1, "echo", { text: "x" }), { "mcp-session-id": session });
    expect(after.status).toBe(404);
    await after.text();
    const again = await fetch(handle.url, { method: "DELETE", headers: { "mcp-session-id": session } });
    expect(again.status).toBe(404);
    await again.text();
  });

  it("expires idle sessions, but not one with a request in flight", async () => {
    let now = 0; // the sessions' clock, moved by the test
    const handle = await start({ sessionIdleMs: 100, clock: () => now });
    const idle = await initialize(handle.url);
    const busy = await initialize(handle.url);
    const slow = post(handle.url, call(1, "slow", { steps: 1, delayMs: 1500 }), { "mcp-session-id": busy, "mcp-protocol-version": V });
    await until(() => handle.stats.exchanges === 1, { timeoutMs: 3000, what: "the slow call to start" });
    now += 1000; // both sessions idle for 10× sessionIdleMs; the next sweep (every 50 ms) sees it
    await until(() => handle.stats.sessions === 1, { timeoutMs: 3000, what: "the idle session to expire" });
    const gone = await post(handle.url, call(2, "echo", { text: "x" }), { "mcp-session-id": idle });
    expect(gone.status).toBe(404);
    await gone.text();
    expect((await slow).status).toBe(200);
  });

  it("expires idle sessions by the system clock when none is given, and keeps one in use", async () => {
    const handle = await start({ sessionIdleMs: 1000 }); // the clock read at most every 50 ms (a twentieth of it)
    const before = Date.now();
    const idle = await initialize(handle.url);
    const used = await initialize(handle.url);
    // A request on `used` every ~30 ms until the other one expires (within 5 s), not sooner than its time.
    for (let id = 1; handle.stats.sessions === 2; id++) {
      if (Date.now() - before > 5000) throw new Error("the idle session did not expire within 5 s");
      const response = await post(handle.url, call(id, "echo", { text: "x" }), { "mcp-session-id": used, "mcp-protocol-version": V });
      expect(response.status).toBe(200);
      await response.text();
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    expect(Date.now() - before).toBeGreaterThanOrEqual(1000 - 50);
    const gone = await post(handle.url, call(0, "echo", { text: "x" }), { "mcp-session-id": idle });
    expect(gone.status).toBe(404);
    await gone.text();
    const kept = await post(handle.url, call(0, "echo", { text: "x" }), { "mcp-session-id": used, "mcp-protocol-version": V });
    expect(kept.status).toBe(200);
    await kept.text();
  });

  it("expires a session whose client vanished in the middle of an elicitation, cancelling the call", async () => {
    let now = 0;
    const handle = await start({ sessionIdleMs: 100, clock: () => now });
    const session = await initialize(handle.url, V, { elicitation: {} });
    const response = await post(handle.url, call(1, "ask", { what: "elicit" }), { "mcp-session-id": session, "mcp-protocol-version": V });
    const reader = new SseReader(response.body as ReadableStream<Uint8Array>);
    const ask = await reader.message();
    assertServerMessage(ask, V);
    expect(ask).toMatchObject({ method: "elicitation/create" });
    expect(handle.transport.server.awaitingClient).toBe(1);
    await reader.cancel(); // and never answers
    now += 1000;
    await until(() => handle.stats.sessions === 0, { timeoutMs: 3000, what: "the session to expire" });
    expect(handle.stats).toEqual({ sessions: 0, streams: 0, exchanges: 0 });
    expect(handle.transport.server.awaitingClient).toBe(0);
  });

  it("refuses new sessions beyond maxSessions with 503", async () => {
    const { url } = await start({ maxSessions: 2 });
    await initialize(url);
    await initialize(url);
    const third = await post(url, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: V, capabilities: {}, clientInfo: { name: "x", version: "1" } } });
    expect(third.status).toBe(503);
    expect(third.headers.get("retry-after")).toBe("5");
    await third.text();
  });
});

describe("2026 era: stateless POST", () => {
  it("answers with JSON and no session", async () => {
    const { url } = await start();
    const response = await modern(url, 1, "tools/call", { name: "echo", arguments: { text: "hi" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    const [message] = await messagesOf(response, "2026-07-28", "tools/call");
    expect(message).toMatchObject({ id: 1, result: { resultType: "complete", content: [{ type: "text", text: "hi" }] } });
  });

  it.each([
    ["a missing MCP-Protocol-Version", { "mcp-protocol-version": "" }],
    ["a version header that differs from _meta", { "mcp-protocol-version": "2025-11-25" }],
    ["a missing Mcp-Method", { "mcp-method": "" }],
    ["an Mcp-Method that differs from the body", { "mcp-method": "tools/list" }],
    ["a missing Mcp-Name", { "mcp-name": "" }],
    ["an Mcp-Name that differs from the body", { "mcp-name": "add" }],
    ["a malformed base64 Mcp-Name", { "mcp-name": "=?base64?!!!?=" }],
  ])("rejects %s with 400 HeaderMismatch (-32020)", async (_what, headers) => {
    const { url } = await start();
    const clean = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== "")) as Record<string, string>;
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...Object.fromEntries(
          Object.entries({ "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "echo" }).filter(([k]) => !(k in headers)),
        ),
        ...clean,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo", arguments: { text: "x" }, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } } }),
    });
    expect(response.status).toBe(400);
    const [message] = await messagesOf(response, "2026-07-28");
    expect(message).toMatchObject({ id: 3, error: { code: -32020 } });
  });

  it("takes the status of an error from its kind, whatever the id looks like (integers beyond 2^53 too)", async () => {
    const { url } = await start();
    const envelope = JSON.stringify(ENVELOPE);
    const send = (id: string, method: string, params: string, name?: string): Promise<Response> =>
      post(url, `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":{${params}${params === "" ? "" : ","}"_meta":${envelope}}}`, {
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
        ...(name !== undefined && { "mcp-name": name }),
      });
    for (const id of ["123456789012345678901234567890", "9007199254740993", "-9007199254740993", "7", '"s"']) {
      const cases: [Promise<Response>, number, number | undefined][] = [
        [send(id, "tools/call", '"name":"nope"', "nope"), 400, -32602], // refused at once
        [send(id, "frobnicate", ""), 404, -32601],
        [send(id, "tools/call", '"name":"ask","arguments":{"what":"elicit"}', "ask"), 400, -32021], // refused after the handler ran
        [send(id, "tools/call", '"name":"echo","arguments":{"text":"x"}', "echo"), 200, undefined],
      ];
      for (const [pending, status, code] of cases) {
        const response = await pending;
        const body = await response.text();
        expect(response.status, `${id}: ${body}`).toBe(status);
        const message = JSON.parse(body) as Json;
        expect((message.error as Json | undefined)?.code, body).toBe(code);
      }
    }
  });

  it("accepts a base64-encoded Mcp-Name", async () => {
    const { url } = await start();
    const response = await modern(url, 1, "tools/call", { name: "echo", arguments: { text: "b64" } }, { "mcp-name": `=?base64?${btoa("echo")}?=` });
    expect(response.status).toBe(200);
    await messagesOf(response, "2026-07-28", "tools/call");
  });

  it("answers an unknown method with 404 / -32601, an unsupported version with 400 / -32022, a notification with 202", async () => {
    const { url } = await start();
    const unknown = await modern(url, 1, "resources/frobnicate");
    expect(unknown.status).toBe(404);
    expect((await messagesOf(unknown, "2026-07-28"))[0]).toMatchObject({ error: { code: -32601 } });
    const unsupported = await modern(url, 2, "tools/list", { _meta: { "io.modelcontextprotocol/protocolVersion": "2099-01-01" } }, { "mcp-protocol-version": "2099-01-01" });
    expect(unsupported.status).toBe(400);
    const [error] = await messagesOf(unsupported, "2026-07-28");
    expect(error).toMatchObject({ error: { code: -32022, data: { supported: expect.arrayContaining(["2026-07-28"]) } } });
    const note = await modern(url, undefined, "notifications/cancelled", { requestId: 1 });
    expect(note.status).toBe(202);
    const handshake = await post(url, { jsonrpc: "2.0", id: 5, method: "initialize", params: { protocolVersion: "2026-07-28", capabilities: {}, clientInfo: { name: "x", version: "1" } } }, { "mcp-protocol-version": "2026-07-28", "mcp-method": "initialize" });
    expect(handshake.status).toBe(404);
    expect((await messagesOf(handshake, "2026-07-28"))[0]).toMatchObject({ id: 5, error: { code: -32601 } });
    const bare = await post(url, { jsonrpc: "2.0", id: 6, method: "tools/list" }, { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" });
    expect(bare.status).toBe(400);
    expect((await messagesOf(bare, "2026-07-28"))[0]).toMatchObject({ id: 6, error: { code: -32602 } });
    const invalid = await modern(url, 4, "tools/call", { name: "nope" });
    expect(invalid.status).toBe(400);
    expect((await messagesOf(invalid, "2026-07-28"))[0]).toMatchObject({ error: { code: -32602 } });
  });

  it("refuses GET and DELETE from a 2026 client with 405", async () => {
    const { url } = await start();
    const get = await fetch(url, { headers: { accept: "text/event-stream", "mcp-protocol-version": "2026-07-28" } });
    expect(get.status).toBe(405);
    await get.text();
  });

  it("cancels the request when its SSE stream closes", async () => {
    const handle = await start();
    const response = await modern(handle.url, 1, "tools/call", { name: "slow", arguments: { steps: 10_000, delayMs: 5 }, _meta: { progressToken: 1 } });
    const reader = new SseReader(response.body as ReadableStream<Uint8Array>);
    const first = await reader.message();
    assertServerMessage(first, "2026-07-28");
    expect(first).toMatchObject({ method: "notifications/progress" });
    expect(handle.stats.exchanges).toBe(1);
    await reader.cancel();
    await until(() => handle.stats.exchanges === 0, { what: "the request to be cancelled" });
  });

  it.each(["json", "sse"] as const)("in %s response mode, cancels the request when the client disconnects, started or not", async (responseMode) => {
    const handle = await start({ responseMode });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "slow" };
    const leave = async (id: number): Promise<void> => {
      const abort = new AbortController();
      const body = { jsonrpc: "2.0", id, method: "tools/call", params: { name: "slow", arguments: { steps: 10_000, delayMs: 5 }, _meta: ENVELOPE } };
      const response = fetch(handle.url, { method: "POST", headers, body: JSON.stringify(body), signal: abort.signal });
      await until(() => handle.stats.exchanges === 1, { what: "the request to arrive" });
      abort.abort(); // before any byte of the answer: without a progress token nothing precedes the result
      await expect(response).rejects.toThrow();
      await until(() => handle.stats.exchanges === 0, { what: "the request to be cancelled" });
    };
    await leave(1); // a fresh server: the call waits for the tool-call runtime and its handler to load
    const done = await modern(handle.url, 2, "tools/call", { name: "slow", arguments: { steps: 1, delayMs: 1 } });
    expect((await messagesOf(done, "2026-07-28"))[0]).toMatchObject({ id: 2, result: { content: [{ type: "text", text: "finished 1 steps" }] } });
    await leave(3); // everything loaded: the handler is running
  });

  it("holds a subscriptions/listen stream: acknowledged first, keep-alive comments, no proxy buffering", async () => {
    const handle = await start({ keepAliveMs: 20 });
    const response = await modern(handle.url, "listen-1", "subscriptions/listen", { notifications: { toolsListChanged: true, promptsListChanged: true } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    const reader = new SseReader(response.body as ReadableStream<Uint8Array>);
    const ack = await reader.message();
    assertServerMessage(ack, "2026-07-28");
    expect(ack).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { _meta: { "io.modelcontextprotocol/subscriptionId": "listen-1" }, notifications: { toolsListChanged: true } },
    });
    expect((await reader.next())?.event).toBe("comment");
    expect(handle.stats.streams).toBe(1);
    await reader.cancel();
    await until(() => handle.stats.streams === 0, { what: "the stream to close" });
  });
});

describe("response modes", () => {
  it("json: always one JSON answer, notifications dropped", async () => {
    const { url } = await start({ responseMode: "json" });
    const response = await modern(url, 1, "tools/call", { name: "slow", arguments: { steps: 2, delayMs: 1 }, _meta: { progressToken: 1 } });
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await messagesOf(response, "2026-07-28", "tools/call")).toHaveLength(1);
  });

  it("sse: always a stream, even for an immediate answer", async () => {
    const { url } = await start({ responseMode: "sse" });
    const response = await modern(url, 1, "tools/call", { name: "echo", arguments: { text: "s" } });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(await messagesOf(response, "2026-07-28", "tools/call")).toHaveLength(1);
  });

  it("a client accepting only JSON gets JSON; one accepting neither gets 406", async () => {
    const { url } = await start();
    const json = await modern(url, 1, "tools/call", { name: "slow", arguments: { steps: 2, delayMs: 1 }, _meta: { progressToken: 1 } }, { accept: "application/json" });
    expect(json.headers.get("content-type")).toBe("application/json");
    await json.text();
    const neither = await modern(url, 1, "tools/list", {}, { accept: "text/html" });
    expect(neither.status).toBe(406);
    await messagesOf(neither, "2026-07-28");
  });
});

describe("secure defaults", () => {
  it("binds 127.0.0.1 by default", async () => {
    const handle = await start();
    expect(handle.host).toBe("127.0.0.1");
    expect(handle.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it("fetch face: reads a body over the limit to its end (within a bound) before the 413", async () => {
    const limit = 1024 * 1024;
    const handler = createHttpHandler(createServer(registry), { maxBodyBytes: limit });
    const send = async (total: number): Promise<{ status: number; read: number; cancelled: boolean }> => {
      let read = 0;
      let cancelled = false;
      const piece = new Uint8Array(64 * 1024).fill(32);
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (read >= total) return controller.close();
          read += piece.byteLength;
          controller.enqueue(piece);
        },
        cancel() {
          cancelled = true;
        },
      });
      const response = await handler.fetch(
        new Request("http://127.0.0.1:3000/mcp", { method: "POST", headers: { "content-type": "application/json", accept: "application/json" }, body, duplex: "half" } as RequestInit),
      );
      await response.text();
      return { status: response.status, read, cancelled };
    };
    expect(await send(limit + 3 * 1024 * 1024)).toEqual({ status: 413, read: limit + 3 * 1024 * 1024, cancelled: false });
    const huge = await send(limit + 64 * 1024 * 1024); // past the bound: let go
    expect(huge.status).toBe(413);
    expect(huge.cancelled).toBe(true);
    expect(huge.read).toBeLessThan(limit + 17 * 1024 * 1024 + 256 * 1024);
    await handler.close();
  });

  it("refuses foreign Host and Origin headers with 403 (DNS rebinding)", async () => {
    const handler = createHttpHandler(createServer(registry));
    const request = (headers: Record<string, string>) =>
      handler.fetch(
        new Request("http://127.0.0.1:3000/mcp", {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
        }),
      );
    expect((await request({ host: "evil.example:3000" })).status).toBe(403);
    const badOrigin = await request({ host: "127.0.0.1:3000", origin: "http://evil.example" });
    expect(badOrigin.status).toBe(403);
    expect(await badOrigin.json()).toEqual({ jsonrpc: "2.0", error: { code: -32000, message: "Forbidden: Origin not allowed" } });
    expect((await request({ host: "localhost:3000", origin: "http://localhost:5173" })).status).not.toBe(403);
    expect((await request({ host: "127.0.0.1:3000", origin: "null" })).status).toBe(403);
    await handler.close();

    const listed = createHttpHandler(createServer(registry), { allowedHosts: ["mcp.example.com"], allowedOrigins: ["https://app.example.com"] });
    const ok = await listed.fetch(
      new Request("http://mcp.example.com/mcp", {
        method: "POST",
        headers: { host: "mcp.example.com", origin: "https://app.example.com", "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: V, capabilities: {}, clientInfo: { name: "x", version: "1" } } }),
      }),
    );
    expect(ok.status).toBe(200);
    await listed.close();
  });

  it("limits the body (413), wants JSON (415) and parses strictly (400 / -32700)", async () => {
    const { url } = await start({ maxBodyBytes: 1024 });
    const big = await post(url, { jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(2000) } });
    expect(big.status).toBe(413);
    await messagesOf(big, V);
    const text = await fetch(url, { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" });
    expect(text.status).toBe(415);
    await text.text();
    // the media type is compared without its parameters, whatever its case
    const cased = await fetch(url, { method: "POST", headers: { "content-type": "Application/JSON; charset=utf-8", accept: "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) });
    expect(cased.status).not.toBe(415);
    await cased.text();
    const broken = await post(url, '{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(broken.status).toBe(400);
    expect((await messagesOf(broken, V))[0]).toMatchObject({ error: { code: -32700 } });
  });

  it("answers other paths with 404 and other methods with 405", async () => {
    const handle = await start();
    const other = await fetch(handle.url.replace("/mcp", "/other"));
    expect(other.status).toBe(404);
    await other.text();
    const put = await fetch(handle.url, { method: "PUT" });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, POST, DELETE");
    await put.text();
  });

  it("has CORS off by default and answers preflights only when configured", async () => {
    const off = await start();
    const preflight = await fetch(off.url, { method: "OPTIONS", headers: { origin: "http://localhost:5173", "access-control-request-method": "POST" } });
    expect(preflight.status).toBe(405);
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    await preflight.text();
    const on = await start({ cors: { origins: ["https://app.example.com"] }, allowedOrigins: ["https://app.example.com"] });
    const allowed = await fetch(on.url, { method: "OPTIONS", headers: { origin: "https://app.example.com", "access-control-request-method": "POST", "access-control-request-headers": "content-type, mcp-session-id" } });
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(allowed.headers.get("access-control-allow-headers")).toBe("content-type, mcp-session-id");
    const init = await post(on.url, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: V, capabilities: {}, clientInfo: { name: "x", version: "1" } } }, { origin: "https://app.example.com" });
    expect(init.headers.get("access-control-expose-headers")).toContain("mcp-session-id");
    await init.text();
  });
});

describe("the web-standard fetch handler", () => {
  it("serves a whole 2025 session and a 2026 stream without any network", async () => {
    const handler = createHttpHandler(createServer(registry));
    const base = "http://localhost/mcp";
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const init = await handler.fetch(new Request(base, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: V, capabilities: {}, clientInfo: { name: "x", version: "1" } } }) }));
    const session = init.headers.get("mcp-session-id") as string;
    expect(session).toBeTruthy();
    await messagesOf(init, V, "initialize");
    const slow = await handler.fetch(
      new Request(base, { method: "POST", headers: { ...headers, "mcp-session-id": session }, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "slow", arguments: { steps: 2, delayMs: 1 }, _meta: { progressToken: 9 } } }) }),
    );
    expect((await messagesOf(slow, V, "tools/call")).map((m) => m.method ?? m.id)).toEqual(["notifications/progress", "notifications/progress", 2]);
    expect(handler.stats.sessions).toBe(1);
    const deleted = await handler.fetch(new Request(base, { method: "DELETE", headers: { "mcp-session-id": session } }));
    expect(deleted.status).toBe(200);
    expect(handler.stats.sessions).toBe(0);
    await handler.close();
  });

  it("is made without waiting for the transport, which a close and the requests after it wait for", async () => {
    // The transport loads when the handler is made (the package's entry point does not load it): a close
    // that comes first still closes it, and what comes after is refused as after any close.
    const handler = createHttpHandler(createServer(registry));
    expect(handler.stats).toEqual({ sessions: 0, streams: 0, exchanges: 0 });
    await handler.close();
    const refused = await handler.fetch(new Request("http://localhost/mcp", { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" }));
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ error: { message: "Service Unavailable: the server is shutting down" } });
  });
});
