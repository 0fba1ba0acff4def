/**
 * Resources, prompts, completion and change notifications over Streamable HTTP: raw requests for the wire
 * rules (2025 GET stream delivery, 2026 listen streams and their graceful end, the subscription tables
 * returning to size after many sessions come and go), then the repository's example server (as compiled
 * by test/global-setup.ts) driven by the official clients in both eras. Every server message is spec-checked.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client as ClientV2, ProtocolError, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { HttpServerHandle, Server } from "../../../packages/runtime/src/index.js";
import { registry } from "../fixtures/primitives.mjs";
import { assertRuntimeBuilt, EXAMPLE_SERVER } from "../helpers/e2e.js";
import { assertServerMessage } from "../helpers/spec.js";
import { ENVELOPE, listeningUrl, until } from "../../helpers/wait.js";
import { FetchTap, initialize, messagesOf, modern, post, SseReader, start, stopAll, type Json } from "./helpers.js";

const V = "2025-11-25";
const REQUEST = { timeout: 10_000 };
const closers: (() => Promise<unknown>)[] = [];
const children: ChildProcess[] = [];

afterEach(async () => {
  await Promise.allSettled(closers.splice(0).map((close) => close()));
  await stopAll();
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

function serverOf(handle: HttpServerHandle): Server {
  return handle.transport.server;
}


const rpc = (id: number, method: string, params: Json = {}): Json => ({ jsonrpc: "2.0", id, method, params });

describe("2025 era over HTTP", () => {
  it("delivers resource updates and list changes on the session's GET stream", async () => {
    const handle = await start({ registry });
    const session = await initialize(handle.url);
    const headers = { "mcp-session-id": session, "mcp-protocol-version": V };
    const subscribed = await post(handle.url, rpc(1, "resources/subscribe", { uri: "mem://items/1" }), headers);
    expect(await messagesOf(subscribed, V, "resources/subscribe")).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }]);
    const get = await fetch(handle.url, { headers: { accept: "text/event-stream", ...headers } });
    const stream = new SseReader(get.body as ReadableStream<Uint8Array>);
    await until(() => handle.stats.streams === 1);
    const touched = await post(handle.url, rpc(2, "tools/call", { name: "touch", arguments: { uri: "mem://items/1", list: "resources" } }), headers);
    await messagesOf(touched, V, "tools/call");
    serverOf(handle).listChanged("prompts");
    const received = [await stream.message(), await stream.message(), await stream.message()];
    for (const message of received) assertServerMessage(message, V);
    expect(received).toEqual([
      { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "mem://items/1" } },
      { jsonrpc: "2.0", method: "notifications/resources/list_changed" },
      { jsonrpc: "2.0", method: "notifications/prompts/list_changed" },
    ]);
    await stream.cancel();
  });

  it("returns the subscription tables to size after many sessions subscribe and go (DELETE or expiry)", async () => {
    let now = 0; // the sessions' clock: none expires while they are being set up, however long that takes
    const handle = await start({ registry, sessionIdleMs: 200, clock: () => now });
    const server = serverOf(handle);
    const empty = { sessions: 0, uris: 0, subscriptions: 0, listeners: 0 };
    expect(server.subscriptionStats).toEqual(empty);
    const sessions: string[] = [];
    for (let i = 0; i < 60; i++) {
      const session = await initialize(handle.url);
      sessions.push(session);
      const headers = { "mcp-session-id": session, "mcp-protocol-version": V };
      for (const uri of [`mem://items/${i}`, "mem://shared", `mem://search/${i % 7}`]) {
        const response = await post(handle.url, rpc(i, "resources/subscribe", { uri }), headers);
        expect(response.status).toBe(200);
        await response.text();
      }
    }
    expect(server.subscriptionStats).toEqual({ sessions: 60, uris: 60 + 1 + 7, subscriptions: 180, listeners: 0 });
    // half of them say goodbye, the other half just vanish
    for (const session of sessions.slice(0, 30)) {
      const response = await fetch(handle.url, { method: "DELETE", headers: { "mcp-session-id": session, "mcp-protocol-version": V } });
      expect(response.status).toBe(200);
    }
    expect(server.subscriptionStats).toMatchObject({ sessions: 30, subscriptions: 90 });
    expect(handle.stats.sessions).toBe(30);
    now += 201;
    await until(() => handle.stats.sessions === 0, { timeoutMs: 8000 });
    expect(server.subscriptionStats).toEqual(empty);
    server.resourceUpdated("mem://shared"); // nobody left to tell
  });

  it("stateless mode: no sessions to tell, so resources/subscribe is refused and nothing is kept", async () => {
    const handle = await start({ registry, sessions: false });
    const init = await post(handle.url, { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: V, capabilities: {}, clientInfo: { name: "x", version: "1" } } });
    await messagesOf(init, V, "initialize");
    const response = await post(handle.url, rpc(1, "resources/subscribe", { uri: "mem://items/1" }), { "mcp-protocol-version": V });
    expect((await messagesOf(response, V))[0]).toMatchObject({ error: { code: -32600, message: expect.stringContaining("stateless") } });
    const read = await post(handle.url, rpc(2, "resources/read", { uri: "mem://items/3" }), { "mcp-protocol-version": V });
    expect((await messagesOf(read, V, "resources/read"))[0]).toMatchObject({ result: { contents: [{ uri: "mem://items/3" }] } });
    expect(serverOf(handle).subscriptionStats).toEqual({ sessions: 0, uris: 0, subscriptions: 0, listeners: 0 });
  });
});

describe("2026 era over HTTP", () => {
  it("delivers what a listen stream asked for, tagged with its id, and forgets the stream when it closes", async () => {
    const handle = await start({ registry });
    const server = serverOf(handle);
    const response = await modern(handle.url, "sub-1", "subscriptions/listen", { notifications: { resourceSubscriptions: ["mem://items/9"], promptsListChanged: true } });
    expect(response.status).toBe(200);
    const stream = new SseReader(response.body as ReadableStream<Uint8Array>);
    const tag = { _meta: { "io.modelcontextprotocol/subscriptionId": "sub-1" } };
    const ack = await stream.message();
    assertServerMessage(ack, "2026-07-28");
    expect(ack).toMatchObject({ method: "notifications/subscriptions/acknowledged", params: { ...tag, notifications: { resourceSubscriptions: ["mem://items/9"], promptsListChanged: true } } });
    const touched = await modern(handle.url, 1, "tools/call", { name: "touch", arguments: { uri: "mem://items/9", list: "tools" } });
    await messagesOf(touched, "2026-07-28", "tools/call");
    server.listChanged("prompts");
    const [first, second] = [await stream.message(), await stream.message()];
    for (const message of [first, second]) assertServerMessage(message, "2026-07-28");
    expect(first).toEqual({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { ...tag, uri: "mem://items/9" } });
    expect(second).toEqual({ jsonrpc: "2.0", method: "notifications/prompts/list_changed", params: tag });
    expect(server.subscriptionStats.listeners).toBe(1);
    await stream.cancel();
    await until(() => server.subscriptionStats.listeners === 0 && handle.stats.streams === 0);
  });

  it("ends listen streams with a SubscriptionsListenResult when the server shuts down", async () => {
    const handle = await start({ registry });
    const response = await modern(handle.url, 5, "subscriptions/listen", { notifications: { toolsListChanged: true } });
    const stream = new SseReader(response.body as ReadableStream<Uint8Array>);
    expect(await stream.message()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
    const closing = handle.close();
    const last = await stream.message();
    assertServerMessage(last, "2026-07-28", { method: "subscriptions/listen" });
    expect(last).toMatchObject({ id: 5, result: { resultType: "complete", _meta: { "io.modelcontextprotocol/subscriptionId": 5 } } });
    expect(await stream.rest(2000)).toEqual([]);
    await closing;
    expect(serverOf(handle).subscriptionStats.listeners).toBe(0);
  });

  it("lets the core check listen requests: the same answers as over any other transport", async () => {
    const handle = await start({ registry });
    const core = serverOf(handle).connect({ send: () => undefined }, { ephemeral: true });
    const listen = (id: unknown, params: Json = { notifications: { toolsListChanged: true }, _meta: ENVELOPE }, jsonrpc = "2.0"): Json => ({ jsonrpc, id, method: "subscriptions/listen", params });
    const { "io.modelcontextprotocol/clientCapabilities": _, ...noCapabilities } = ENVELOPE;
    const bad = [
      listen(null),
      listen(1.5),
      listen({}),
      listen(true),
      listen(7, undefined, "1.0"),
      listen(8, { notifications: { toolsListChanged: true }, _meta: noCapabilities }),
    ];
    for (const message of bad) {
      const response = await post(handle.url, message, { "mcp-protocol-version": "2026-07-28", "mcp-method": "subscriptions/listen" });
      const text = await response.text();
      expect(response.status, text).toBe(400);
      expect(response.headers.get("content-type")).toBe("application/json");
      expect(text).toBe(core.handle(message, { send: () => undefined }));
      assertServerMessage(JSON.parse(text) as Json, "2026-07-28");
    }
    expect(serverOf(handle).subscriptionStats.listeners).toBe(0);
    expect(handle.stats.streams).toBe(0);
    // a valid listen request from a client that cannot take a stream: 406, and nothing is left listening
    const jsonOnly = await modern(handle.url, 9, "subscriptions/listen", { notifications: { toolsListChanged: true } }, { accept: "application/json" });
    expect(jsonOnly.status).toBe(406);
    expect((await messagesOf(jsonOnly, "2026-07-28"))[0]).toMatchObject({ id: 9, error: { code: -32000 } });
    expect(serverOf(handle).subscriptionStats.listeners).toBe(0);
  });

  it("refuses a malformed filter with 400 / -32602", async () => {
    const handle = await start({ registry });
    const response = await modern(handle.url, 1, "subscriptions/listen", { notifications: { resourceSubscriptions: [1, 2] } });
    expect(response.status).toBe(400);
    expect((await messagesOf(response, "2026-07-28"))[0]).toMatchObject({ id: 1, error: { code: -32602 } });
  });

  it("answers resources/read of an unknown URI with 400 / -32602 and the URI (SEP-2164)", async () => {
    const handle = await start({ registry });
    const response = await modern(handle.url, 3, "resources/read", { uri: "mem://nope" });
    expect(response.status).toBe(400);
    expect(await messagesOf(response, "2026-07-28")).toEqual([{ jsonrpc: "2.0", id: 3, error: { code: -32602, message: "Resource not found: mem://nope", data: { uri: "mem://nope" } } }]);
  });
});

// ── the example server with the official clients ──

beforeAll(assertRuntimeBuilt);

/** Starts the compiled example server with `--http` on an ephemeral port; resolves to its endpoint. */
async function startExample(): Promise<string> {
  const child = spawn(EXAMPLE_SERVER.command, [...EXAMPLE_SERVER.args, "--http", "--port", "0"], { cwd: EXAMPLE_SERVER.cwd, stdio: ["ignore", "ignore", "pipe"] });
  children.push(child);
  return listeningUrl(child);
}

describe("example server over HTTP, v1 client (2025 era)", () => {
  it("reads resources, renders prompts, completes, and hears about a changed task", async () => {
    const url = await startExample();
    const tap = new FetchTap();
    const client = new ClientV1({ name: "v1-http", version: "1.0.0" });
    closers.push(() => client.close());
    await client.connect(new HttpV1(new URL(url), { fetch: tap.fetch }), REQUEST);
    expect(client.getServerCapabilities()).toMatchObject({ resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {} });
    expect((await client.listResources(undefined, REQUEST)).resources.map((r) => r.uri)).toEqual(["tasks://readme", "tasks://stats"]);
    expect((await client.listResourceTemplates(undefined, REQUEST)).resourceTemplates.map((t) => t.uriTemplate)).toEqual(["tasks://task/{id}", "tasks://status/{status}{?limit}"]);
    const task = (await client.readResource({ uri: "tasks://task/T-1" }, REQUEST)).contents[0] as { text: string; mimeType: string };
    expect(task.mimeType).toBe("application/json");
    expect(JSON.parse(task.text)).toMatchObject({ id: "T-1" });
    await expect(client.readResource({ uri: "tasks://task/T-999" }, REQUEST)).rejects.toMatchObject({ code: -32002, data: { uri: "tasks://task/T-999" } });
    const plan = await client.getPrompt({ name: "plan_day", arguments: { focus: "work", max_tasks: "2" } }, REQUEST);
    expect(plan.messages[0]?.content).toMatchObject({ type: "text", text: expect.stringContaining("Pick at most 2") });
    await expect(client.getPrompt({ name: "plan_day", arguments: { focus: "play" } }, REQUEST)).rejects.toThrow(/\/focus: must be one of/);
    expect((await client.complete({ ref: { type: "ref/prompt", name: "plan_day" }, argument: { name: "focus", value: "w" } }, REQUEST)).completion.values).toEqual(["work"]);

    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params.uri));
    await until(() => tap.exchanges.some((e) => e.method === "GET" && e.status === 200)); // the client's GET stream is open
    await client.subscribeResource({ uri: "tasks://task/T-1" }, REQUEST);
    await client.callTool({ name: "update_task", arguments: { id: "T-1", title: "Renamed over HTTP" } }, undefined, REQUEST);
    await until(() => updates.length > 0);
    expect(updates).toEqual(["tasks://task/T-1"]);
    await client.unsubscribeResource({ uri: "tasks://task/T-1" }, REQUEST);
    await client.close();
    await tap.verify();
  });
});

describe("example server over HTTP, v2 client (2026 era)", () => {
  it("reads resources, renders prompts, completes, and listens for a changed task", async () => {
    const url = await startExample();
    const tap = new FetchTap();
    const client = new ClientV2({ name: "v2-http", version: "2.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    closers.push(() => client.close());
    await client.connect(new HttpV2(new URL(url), { fetch: tap.fetch }), REQUEST);
    expect((await client.listResources(undefined, REQUEST)).resources.map((r) => r.uri)).toEqual(["tasks://readme", "tasks://stats"]);
    expect((await client.readResource({ uri: "tasks://readme" }, REQUEST)).contents[0]).toMatchObject({ mimeType: "text/markdown", text: expect.stringContaining("# Tasks") });
    await expect(client.readResource({ uri: "tasks://nothing" }, REQUEST)).rejects.toBeInstanceOf(ProtocolError);
    const summary = await client.getPrompt({ name: "summarize_task", arguments: { id: "T-1" } }, REQUEST);
    expect(summary.messages[0]?.content).toMatchObject({ type: "resource", resource: { uri: "tasks://task/T-1" } });
    const ids = await client.complete({ ref: { type: "ref/resource", uri: "tasks://task/{id}" }, argument: { name: "id", value: "T-" } }, REQUEST);
    expect(ids.completion.values).toContain("T-1");

    const updates: string[] = [];
    client.setNotificationHandler("notifications/resources/updated", (n) => void updates.push(n.params.uri));
    const subscription = await client.listen({ resourceSubscriptions: ["tasks://stats"] }, REQUEST);
    expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: ["tasks://stats"] });
    await client.callTool({ name: "create_task", arguments: { title: "Heard on the listen stream" } }, REQUEST);
    await until(() => updates.length > 0);
    expect(updates).toEqual(["tasks://stats"]);
    await subscription.close();
    expect(await subscription.closed).toBe("local");
    await client.close();
    await tap.verify();
  });
});
