/**
 * Streamable HTTP end to end with the official clients on 127.0.0.1: the v1 SDK client (2025 era, three
 * versions, sessions and stateless), the v2 client in both eras. Every message the server sends is checked
 * against the spec schema of the negotiated version by the fetch tap.
 */
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { LoggingMessageNotificationSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import { bearerAuth, type HttpServerHandle } from "../../../packages/runtime/src/index.js";
import { until } from "../../helpers/wait.js";
import { FetchTap, start, stopAll, type Json } from "./helpers.js";

const REQUEST = { timeout: 10_000 };
const closers: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  await Promise.allSettled(closers.splice(0).map((close) => close()));
  await stopAll();
});

/** v1 always offers its latest version; this rewrites the offer to force an older one. */
class OfferVersion implements Transport {
  constructor(
    private readonly inner: HttpV1,
    private readonly version: string,
  ) {}
  set onclose(handler: (() => void) | undefined) {
    this.inner.onclose = handler as () => void;
  }
  set onerror(handler: ((error: Error) => void) | undefined) {
    this.inner.onerror = handler as (error: Error) => void;
  }
  set onmessage(handler: Transport["onmessage"]) {
    this.inner.onmessage = handler as HttpV1["onmessage"] & {};
  }
  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }
  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion(version);
  }
  start(): Promise<void> {
    return this.inner.start();
  }
  close(): Promise<void> {
    return this.inner.close();
  }
  send(message: JSONRPCMessage, options?: Parameters<Transport["send"]>[1]): Promise<void> {
    if ("method" in message && message.method === "initialize") {
      return this.inner.send({ ...message, params: { ...message.params, protocolVersion: this.version } } as JSONRPCMessage, options as never);
    }
    return this.inner.send(message, options as never);
  }
}

async function connectV1(handle: HttpServerHandle, version: string, tap: FetchTap, init?: RequestInit): Promise<{ client: ClientV1; transport: HttpV1 }> {
  const transport = new HttpV1(new URL(handle.url), { fetch: tap.fetch, ...(init && { requestInit: init }) });
  const client = new ClientV1({ name: "v1-http", version: "1.0.0" });
  closers.push(() => client.close());
  await client.connect(version === "2025-11-25" ? transport : new OfferVersion(transport, version), REQUEST);
  return { client, transport };
}

type V2Mode = "auto" | "pin" | "legacy";
async function connectV2(handle: HttpServerHandle, mode: V2Mode, tap: FetchTap): Promise<ClientV2> {
  const options = mode === "auto" ? { versionNegotiation: { mode: "auto" as const } } : mode === "pin" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {};
  const client = new ClientV2({ name: "v2-http", version: "2.0.0" }, options);
  closers.push(() => client.close());
  await client.connect(new HttpV2(new URL(handle.url), { fetch: tap.fetch }), REQUEST);
  return client;
}

function progressOnWire(tap: FetchTap): unknown[] {
  return tap.messages().filter((m) => m.method === "notifications/progress").map((m) => (m.params as Json).progress);
}

describe.each(["2025-11-25", "2025-06-18", "2025-03-26"])("v1 SDK client over HTTP, protocol %s", (version) => {
  it("holds a session: lists, calls, validates, fails politely, deletes the session", async () => {
    const handle = await start();
    const tap = new FetchTap();
    const { client, transport } = await connectV1(handle, version, tap);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: true }, logging: {} });
    const { tools } = await client.listTools(undefined, REQUEST);
    expect(tools.map((t) => t.name)).toContain("echo");
    await client.ping(REQUEST);
    expect(await client.callTool({ name: "echo", arguments: { text: "hi" } }, undefined, REQUEST)).toEqual({ content: [{ type: "text", text: "hi" }] });
    expect((await client.callTool({ name: "add", arguments: { a: 2, b: 3 } }, undefined, REQUEST)).structuredContent).toEqual({ sum: 5 });
    expect(await client.callTool({ name: "echo", arguments: { text: 3 } }, undefined, REQUEST)).toEqual({
      content: [{ type: "text", text: "Invalid arguments: /text: must be string" }],
      isError: true,
    });
    expect((await client.callTool({ name: "fail" }, undefined, REQUEST)).isError).toBe(true);
    await expect(client.callTool({ name: "nope" }, undefined, REQUEST)).rejects.toMatchObject({ code: -32602 });
    expect(handle.stats.sessions).toBe(1);
    await transport.terminateSession();
    expect(handle.stats.sessions).toBe(0);
    await client.close();
    const exchanges = await tap.verify();
    expect(exchanges.find((e) => (e.requestBody as Json | undefined)?.method === "initialize")?.responseHeaders["mcp-session-id"]).toBeDefined();
    // every request after initialize carried the session and the negotiated version
    for (const e of exchanges.filter((x) => x.method === "POST" && (x.requestBody as Json).method !== "initialize")) {
      expect(e.requestHeaders["mcp-session-id"]).toBe(transport.sessionId ?? e.requestHeaders["mcp-session-id"]);
    }
  });

  it("streams progress and logs before the result, and cancels with notifications/cancelled", async () => {
    const handle = await start();
    const tap = new FetchTap();
    const { client } = await connectV1(handle, version, tap);
    const progress: number[] = [];
    const result = await client.callTool({ name: "slow", arguments: { steps: 3, delayMs: 5 } }, undefined, { ...REQUEST, onprogress: (p) => progress.push(p.progress) });
    expect(result.content).toEqual([{ type: "text", text: "finished 3 steps" }]);
    expect(progress).toEqual([1, 2, 3]);
    const call = tap.exchanges.find((e) => ((e.requestBody as Json | undefined)?.params as Json | undefined)?.name === "slow");
    expect(call?.responseHeaders["content-type"]).toBe("text/event-stream");
    expect(call?.responseHeaders["x-accel-buffering"]).toBe("no");
    expect(call?.messages.map((m) => m.method ?? "response")).toEqual(["notifications/progress", "notifications/progress", "notifications/progress", "response"]);

    const logs: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.level));
    await client.setLoggingLevel("warning", REQUEST);
    await client.callTool({ name: "log" }, undefined, REQUEST);
    expect(logs).toEqual(["warning", "error"]);

    // a fast call with nothing to stream is answered with plain JSON
    await client.callTool({ name: "echo", arguments: { text: "json" } }, undefined, REQUEST);
    expect(tap.exchanges.at(-1)?.responseHeaders["content-type"]).toBe("application/json");

    const abort = new AbortController();
    // cancelled once it is under way (its first progress)
    const cancelled = client.callTool({ name: "slow", arguments: { steps: 1000, delayMs: 5 } }, undefined, { ...REQUEST, signal: abort.signal, onprogress: () => abort.abort("changed my mind") });
    await expect(cancelled).rejects.toThrow();
    expect(await client.callTool({ name: "echo", arguments: { text: "still serving" } }, undefined, REQUEST)).toMatchObject({ content: [{ text: "still serving" }] });
    await client.close();
    await tap.verify();
    expect(tap.exchanges.some((e) => (e.requestBody as Json | undefined)?.method === "notifications/cancelled" && e.status === 202)).toBe(true);
    expect(progressOnWire(tap).slice(0, 3)).toEqual([1, 2, 3]);
  });
});

describe("v1 SDK client, stateless 2025 mode", () => {
  it("works without sessions; GET and DELETE are not offered", async () => {
    const handle = await start({ sessions: false });
    const tap = new FetchTap();
    const { client, transport } = await connectV1(handle, "2025-11-25", tap);
    expect(transport.sessionId).toBeUndefined();
    const progress: number[] = [];
    await client.callTool({ name: "slow", arguments: { steps: 2, delayMs: 1 } }, undefined, { ...REQUEST, onprogress: (p) => progress.push(p.progress) });
    expect(progress).toEqual([1, 2]);
    expect((await client.callTool({ name: "add", arguments: { a: 1, b: 1 } }, undefined, REQUEST)).structuredContent).toEqual({ sum: 2 });
    expect(handle.stats.sessions).toBe(0);
    await client.close();
    const exchanges = await tap.verify();
    expect(exchanges.find((e) => e.method === "GET")?.status).toBe(405);
    expect(exchanges.every((e) => e.responseHeaders["mcp-session-id"] === undefined)).toBe(true);
  });
});

describe("v2 client over HTTP", () => {
  it.each(["auto", "pin"] as const)("speaks 2026-07-28 statelessly (%s)", async (mode) => {
    const handle = await start();
    const tap = new FetchTap();
    const client = await connectV2(handle, mode, tap);
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    const { tools } = await client.listTools(undefined, REQUEST);
    expect(tools.map((t) => t.name)).toContain("echo");
    expect((await client.callTool({ name: "add", arguments: { a: 2, b: 5 } }, REQUEST)).structuredContent).toEqual({ sum: 7 });
    const progress: number[] = [];
    await client.callTool({ name: "slow", arguments: { steps: 3, delayMs: 2 } }, { ...REQUEST, onprogress: (p) => progress.push(p.progress) });
    expect(progress).toEqual([1, 2, 3]);
    await expect(client.callTool({ name: "nope" }, REQUEST)).rejects.toMatchObject({ code: -32602 });
    await client.close();
    const exchanges = await tap.verify();
    expect(handle.stats.sessions).toBe(0);
    // every 2026 request carried the mirrored headers and got no session
    for (const e of exchanges.filter((x) => x.method === "POST")) {
      expect(e.requestHeaders["mcp-method"]).toBe((e.requestBody as Json).method);
      expect(e.responseHeaders["mcp-session-id"]).toBeUndefined();
    }
  });

  it("cancels a 2026 request by closing its stream: the handler's signal fires", async () => {
    const handle = await start();
    const tap = new FetchTap();
    const client = await connectV2(handle, "pin", tap);
    const abort = new AbortController();
    let progressed = false;
    const call = client.callTool({ name: "slow", arguments: { steps: 10_000, delayMs: 5 } }, { ...REQUEST, signal: abort.signal, onprogress: () => (progressed = true) });
    await until(() => progressed, { what: "the first progress" });
    expect(handle.stats.exchanges).toBe(1);
    abort.abort("enough");
    await expect(call).rejects.toThrow();
    await until(() => handle.stats.exchanges === 0, { what: "the handler to be cancelled" });
    expect((await client.callTool({ name: "echo", arguments: { text: "ok" } }, REQUEST)).content).toEqual([{ type: "text", text: "ok" }]);
    await client.close();
    await tap.verify();
  });

  it("falls back to a 2025 session when asked to", async () => {
    const handle = await start();
    const tap = new FetchTap();
    const client = await connectV2(handle, "legacy", tap);
    expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
    expect((await client.callTool({ name: "echo", arguments: { text: "x" } }, REQUEST)).content).toEqual([{ type: "text", text: "x" }]);
    expect(handle.stats.sessions).toBe(1);
    await client.close();
    await tap.verify();
  });
});

describe("authentication", () => {
  const verify = (token: string) => (token === "good-token" ? { subject: "alice", scopes: ["mcp"], clientId: "c1" } : undefined);

  it("hands the verified identity to handlers as ctx.auth; refuses others with 401 + WWW-Authenticate", async () => {
    const handle = await start({ authenticate: bearerAuth(verify), resourceMetadataUrl: "http://127.0.0.1/.well-known/oauth-protected-resource" });
    const tap = new FetchTap();
    const { client } = await connectV1(handle, "2025-11-25", tap, { headers: { authorization: "Bearer good-token" } });
    const context = JSON.parse(((await client.callTool({ name: "context" }, undefined, REQUEST)).content as { text: string }[])[0]?.text ?? "{}") as Json;
    expect(context.auth).toEqual({ subject: "alice", scopes: ["mcp"], clientId: "c1", token: "good-token" });
    await client.close();
    await tap.verify();

    const anonymous = await fetch(handle.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe('Bearer realm="mcp", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"');
    const wrong = await fetch(handle.url, { method: "POST", headers: { authorization: "Bearer bad", "content-type": "application/json" }, body: "{}" });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toContain('error="invalid_token"');

    // the v2 client in the 2026 era is refused the same way without its token
    const refused = new ClientV2({ name: "anon", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    closers.push(() => refused.close());
    await expect(refused.connect(new HttpV2(new URL(handle.url)), REQUEST)).rejects.toThrow();
  });
});
