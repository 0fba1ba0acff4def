/**
 * End to end over stdio with the official clients: the v1 SDK client (2025 era, three versions), the v2
 * client (2026-07-28 by negotiation or pin, and the 2025 era) and the MCP Inspector CLI. Each server runs
 * behind a wiretap; every message it sends is checked against the spec schema of the negotiated version.
 */
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { LoggingMessageNotificationSchema, McpError, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { Client as ClientV2, ProtocolError } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { until } from "../helpers/wait.js";
import { assertRuntimeBuilt, cleanupTaps, builtFixture, FIXTURE_SERVER, runInspector, serverUnderTest, WireTap, type ServerCommand, type TappedProcess } from "./helpers/e2e.js";

const TIMEOUT = 30_000;
const REQUEST = { timeout: 10_000 };
const LOG_LEVEL = "io.modelcontextprotocol/logLevel";

let tap: WireTap;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(assertRuntimeBuilt);
afterEach(async () => {
  await Promise.allSettled(closers.splice(0).map((close) => close()));
  cleanupTaps();
});

/** Everything the server sent in this test, spec-checked; the processes that did not get that far are dropped. */
function wire(): TappedProcess[] {
  return tap.verify();
}

function serverMessages(processes: TappedProcess[]): Record<string, unknown>[] {
  return processes.flatMap((p) => p.fromServer.map((m) => m.message));
}

/** v1 always offers its latest version; this rewrites the offer to force an older one. */
class OfferVersion implements Transport {
  constructor(
    private readonly inner: Transport,
    private readonly version: string,
  ) {}
  set onclose(handler: (() => void) | undefined) {
    this.inner.onclose = handler;
  }
  get onclose(): (() => void) | undefined {
    return this.inner.onclose;
  }
  set onerror(handler: ((error: Error) => void) | undefined) {
    this.inner.onerror = handler;
  }
  get onerror(): ((error: Error) => void) | undefined {
    return this.inner.onerror;
  }
  set onmessage(handler: Transport["onmessage"]) {
    this.inner.onmessage = handler;
  }
  get onmessage(): Transport["onmessage"] {
    return this.inner.onmessage;
  }
  start(): Promise<void> {
    return this.inner.start();
  }
  close(): Promise<void> {
    return this.inner.close();
  }
  send(message: JSONRPCMessage): Promise<void> {
    if ("method" in message && message.method === "initialize") {
      return this.inner.send({ ...message, params: { ...message.params, protocolVersion: this.version } } as JSONRPCMessage);
    }
    return this.inner.send(message);
  }
}

async function connectV1(server: ServerCommand, version: string, serverArgs: string[] = []): Promise<ClientV1> {
  tap = new WireTap();
  const transport = new StdioV1({ ...tap.wrap(server, serverArgs), stderr: "pipe" });
  const client = new ClientV1({ name: "v1-e2e", version: "1.0.0" });
  closers.push(() => client.close());
  await client.connect(version === "2025-11-25" ? transport : new OfferVersion(transport, version), REQUEST);
  return client;
}

type V2Mode = "auto" | "pin" | "legacy" | "2025-06-18";
async function connectV2(server: ServerCommand, mode: V2Mode, serverArgs: string[] = []): Promise<ClientV2> {
  tap = new WireTap();
  const options =
    mode === "auto"
      ? { versionNegotiation: { mode: "auto" as const } }
      : mode === "pin"
        ? { versionNegotiation: { mode: { pin: "2026-07-28" } } }
        : mode === "2025-06-18"
          ? { supportedProtocolVersions: ["2025-06-18"] }
          : {};
  const client = new ClientV2({ name: "v2-e2e", version: "2.0.0" }, options);
  closers.push(() => client.close());
  await client.connect(new StdioV2({ ...tap.wrap(server, serverArgs), stderr: "pipe" }), REQUEST);
  return client;
}

/** The progress values on the wire, in order. (Both clients dispatch notifications a microtask late, so a
 * progress notification right before the response can miss its callback: that race is the client's.) */
function progressOnWire(processes: TappedProcess[]): unknown[] {
  return serverMessages(processes)
    .filter((m) => m.method === "notifications/progress")
    .map((m) => (m.params as { progress: unknown }).progress);
}

function negotiated(processes: TappedProcess[]): string | undefined {
  const init = processes.flatMap((p) => p.fromServer).find((m) => m.method === "initialize");
  return (init?.message.result as { protocolVersion?: string } | undefined)?.protocolVersion;
}

describe.each(["2025-11-25", "2025-06-18", "2025-03-26"])("v1 SDK client, protocol %s", (version) => {
  it(
    "connects, lists and calls tools on the server under test",
    async () => {
      const client = await connectV1(serverUnderTest(), version);
      const { tools } = await client.listTools(undefined, REQUEST);
      expect(tools.length).toBeGreaterThan(0);
      await client.ping(REQUEST);
      await client.close();
      expect(negotiated(wire())).toBe(version);
    },
    TIMEOUT,
  );

  it(
    "runs the tools/call pipeline: text, structured output, argument errors, tool errors, unknown tools",
    async () => {
      const client = await connectV1(FIXTURE_SERVER, version);
      expect(client.getServerVersion()).toEqual({ name: "fixture-server", version: "1.2.3", title: "Fixture server" });
      expect(client.getServerCapabilities()).toEqual({ tools: { listChanged: true }, logging: {} });
      await client.listTools(undefined, REQUEST); // the client learns the output schemas it will enforce
      expect(await client.callTool({ name: "echo", arguments: { text: "hi" } }, undefined, REQUEST)).toEqual({ content: [{ type: "text", text: "hi" }] });
      expect((await client.callTool({ name: "add", arguments: { a: 2, b: 3 } }, undefined, REQUEST)).structuredContent).toEqual({ sum: 5 });
      const invalid = await client.callTool({ name: "echo", arguments: { text: 3 } }, undefined, REQUEST);
      expect(invalid).toEqual({ content: [{ type: "text", text: "Invalid arguments: /text: must be string" }], isError: true });
      const bad = await client.callTool({ name: "bad_output" }, undefined, REQUEST);
      expect(bad.isError).toBe(true);
      expect(bad.structuredContent).toBeUndefined();
      expect((await client.callTool({ name: "fail" }, undefined, REQUEST)).isError).toBe(true);
      await expect(client.callTool({ name: "nope" }, undefined, REQUEST)).rejects.toMatchObject({ code: -32602, message: expect.stringContaining("Unknown tool: nope") });
      await client.close();
      wire();
    },
    TIMEOUT,
  );

  it(
    "delivers progress and log messages, and cancels",
    async () => {
      const client = await connectV1(FIXTURE_SERVER, version);
      const progress: number[] = [];
      const result = await client.callTool({ name: "slow", arguments: { steps: 3, delayMs: 25 } }, undefined, { ...REQUEST, onprogress: (p) => progress.push(p.progress) });
      expect(result.content).toEqual([{ type: "text", text: "finished 3 steps" }]);
      await until(() => progress.length >= 2, { what: "the client to deliver progress" });
      expect(progress.slice(0, 2)).toEqual([1, 2]);
      expect(progressOnWire(tap.verify())).toEqual([1, 2, 3]);

      const logs: string[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.level));
      await client.setLoggingLevel("warning", REQUEST);
      await client.callTool({ name: "log" }, undefined, REQUEST);
      expect(logs).toEqual(["warning", "error"]);

      const abort = new AbortController();
      // cancelled once it is under way (its first progress)
      const cancelled = client.callTool({ name: "slow", arguments: { steps: 1000, delayMs: 5 } }, undefined, { ...REQUEST, signal: abort.signal, onprogress: () => abort.abort("changed my mind") });
      await expect(cancelled).rejects.toThrow();
      expect(await client.callTool({ name: "echo", arguments: { text: "still serving" } }, undefined, REQUEST)).toMatchObject({ content: [{ text: "still serving" }] });
      await client.close();
      const [process] = wire();
      expect(process?.fromClient).toContainEqual(expect.objectContaining({ method: "notifications/cancelled" }));
      expect(process?.exit).toEqual({ code: "0", signal: "null" });
    },
    TIMEOUT,
  );
});

describe("v2 client, 2026-07-28", () => {
  it.each(["auto", "pin"] as const)(
    "negotiates the modern era (%s) with the server under test",
    async (mode) => {
      const client = await connectV2(serverUnderTest(), mode);
      expect(client.getProtocolEra()).toBe("modern");
      expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      const { tools } = await client.listTools(undefined, REQUEST);
      expect(tools.length).toBeGreaterThan(0);
      await client.close();
      const processes = wire();
      // `auto` probes on a disposable sibling process first
      expect(processes.length).toBeGreaterThanOrEqual(1);
      expect(negotiated(processes)).toBeUndefined();
      expect(serverMessages(processes).some((m) => (m.result as { supportedVersions?: string[] } | undefined)?.supportedVersions?.includes("2026-07-28"))).toBe(true);
    },
    TIMEOUT,
  );

  it(
    "calls tools statelessly: results, errors, progress, per-request log level, cancellation",
    async () => {
      const client = await connectV2(FIXTURE_SERVER, "auto");
      expect(client.getServerVersion()).toEqual({ name: "fixture-server", version: "1.2.3", title: "Fixture server" });
      expect(client.getInstructions()).toBe("Tools for testing the mcpgen runtime. Start with echo.");
      const { tools } = await client.listTools(undefined, REQUEST);
      expect(tools.map((t) => t.name)).toContain("echo");
      expect(tools.map((t) => t.name)).not.toContain("hidden_tool");

      expect((await client.callTool({ name: "echo", arguments: { text: "modern" } }, REQUEST)).content).toEqual([{ type: "text", text: "modern" }]);
      expect((await client.callTool({ name: "add", arguments: { a: 1, b: 1 } }, REQUEST)).structuredContent).toEqual({ sum: 2 });
      expect(await client.callTool({ name: "echo", arguments: {} }, REQUEST)).toMatchObject({ isError: true, content: [{ text: "Invalid arguments: /text: is required" }] });
      await expect(client.callTool({ name: "nope" }, REQUEST)).rejects.toSatisfy((e: unknown) => e instanceof ProtocolError && e.code === -32602);

      const progress: number[] = [];
      await client.callTool({ name: "slow", arguments: { steps: 2, delayMs: 25 } }, { ...REQUEST, onprogress: (p) => progress.push(p.progress) });
      // the client may hand notifications to its handlers after it resolved the call: wait for it, bounded
      await until(() => progress.length > 0, { what: "the client to deliver progress" });
      expect(progress[0]).toBe(1);
      expect(progressOnWire(tap.verify())).toEqual([1, 2]);

      const logs: string[] = [];
      client.setNotificationHandler("notifications/message", (n) => void logs.push(n.params.level));
      await client.callTool({ name: "log" }, REQUEST);
      expect(logs).toEqual([]); // no log level in _meta: no log messages
      await client.callTool({ name: "log", _meta: { [LOG_LEVEL]: "info" } }, REQUEST);
      expect(logs).toEqual(["info", "warning", "error"]);

      const abort = new AbortController();
      // cancelled once it is under way (its first progress)
      const cancelled = client.callTool({ name: "slow", arguments: { steps: 1000, delayMs: 5 } }, { ...REQUEST, signal: abort.signal, onprogress: () => abort.abort("changed my mind") });
      await expect(cancelled).rejects.toThrow();
      expect((await client.callTool({ name: "echo", arguments: { text: "after cancel" } }, REQUEST)).content).toEqual([{ type: "text", text: "after cancel" }]);
      await client.close();

      const processes = wire();
      const modern = serverMessages(processes).filter((m) => "result" in m);
      expect(modern.every((m) => (m.result as { resultType?: string }).resultType === "complete")).toBe(true);
    },
    TIMEOUT,
  );
});

describe("v2 client, 2025 era", () => {
  it.each([
    ["legacy", "2025-11-25"],
    ["2025-06-18", "2025-06-18"],
  ] as const)(
    "runs the initialize handshake (%s) and calls tools",
    async (mode, version) => {
      const client = await connectV2(FIXTURE_SERVER, mode);
      expect(client.getProtocolEra()).toBe("legacy");
      expect(client.getNegotiatedProtocolVersion()).toBe(version);
      expect((await client.listTools(undefined, REQUEST)).tools.length).toBeGreaterThan(0);
      expect((await client.callTool({ name: "add", arguments: { a: 4, b: 5 } }, REQUEST)).structuredContent).toEqual({ sum: 9 });
      const progress: number[] = [];
      await client.callTool({ name: "slow", arguments: { steps: 2, delayMs: 25 } }, { ...REQUEST, onprogress: (p) => progress.push(p.progress) });
      // the client may hand notifications to its handlers after it resolved the call: wait for it, bounded
      await until(() => progress.length > 0, { what: "the client to deliver progress" });
      expect(progress[0]).toBe(1);
      await client.close();
      expect(progressOnWire(wire())).toEqual([1, 2]);
      expect(negotiated(wire())).toBe(version);
    },
    TIMEOUT,
  );
});

describe("tools/list pagination with the official clients", () => {
  const LISTED = 15; // fixture tools, hidden_tool excluded

  it(
    "v1 walks the cursors page by page",
    async () => {
      const client = await connectV1(FIXTURE_SERVER, "2025-11-25", ["--page-size", "4"]);
      const names: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? undefined : { cursor }, REQUEST);
        expect(page.tools.length).toBeLessThanOrEqual(4);
        names.push(...page.tools.map((t) => t.name));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      expect(names).toHaveLength(LISTED);
      expect([...names].sort()).toEqual(names);
      await client.close();
      wire();
    },
    TIMEOUT,
  );

  it.each(["auto", "legacy"] as const)(
    "v2 (%s) aggregates every page",
    async (mode) => {
      const client = await connectV2(FIXTURE_SERVER, mode, ["--page-size", "4"]);
      expect((await client.listTools(undefined, REQUEST)).tools).toHaveLength(LISTED);
      await client.close();
      const pages = serverMessages(wire()).filter((m) => (m.result as { tools?: unknown[] } | undefined)?.tools);
      expect(pages.length).toBeGreaterThanOrEqual(4);
    },
    TIMEOUT,
  );
});

describe("every tool in one page by default, for clients that read only the first", () => {
  const WIDE_SERVER: ServerCommand = builtFixture("wide").server;

  it(
    "v1 gets all 150 tools from one tools/list without a cursor",
    async () => {
      const client = await connectV1(WIDE_SERVER, "2025-11-25");
      const page = await client.listTools(undefined, REQUEST);
      expect(page.tools).toHaveLength(150);
      expect(page.nextCursor).toBeUndefined();
      expect(await client.callTool({ name: "tool_149", arguments: {} }, undefined, REQUEST)).toEqual({ content: [{ type: "text", text: "tool_149" }] });
      await client.close();
      wire();
    },
    TIMEOUT,
  );

  it.each(["auto", "legacy"] as const)(
    "v2 (%s) gets them in one page, and pages of --page-size when asked",
    async (mode) => {
      const client = await connectV2(WIDE_SERVER, mode);
      expect((await client.listTools(undefined, REQUEST)).tools).toHaveLength(150);
      await client.close();
      expect(serverMessages(wire()).filter((m) => (m.result as { tools?: unknown[] } | undefined)?.tools)).toHaveLength(1);

      const paged = await connectV2(WIDE_SERVER, mode, ["--page-size", "40"]);
      expect((await paged.listTools(undefined, REQUEST)).tools).toHaveLength(150);
      await paged.close();
      const pages = serverMessages(wire()).filter((m) => (m.result as { tools?: unknown[] } | undefined)?.tools);
      expect(pages.map((m) => (m.result as { tools: unknown[] }).tools.length)).toEqual([40, 40, 40, 30]);
    },
    TIMEOUT,
  );
});

describe("structured results with the handler's own content, through the official clients", () => {
  const content = [
    { type: "text", text: "2 + 3 = 5" },
    { type: "text", text: "Computed exactly.", annotations: { audience: ["user"] } },
  ];

  it(
    "v1 receives the content next to structuredContent, and an invalid structured part is refused",
    async () => {
      const client = await connectV1(FIXTURE_SERVER, "2025-11-25");
      expect(await client.callTool({ name: "structured_sum", arguments: { a: 2, b: 3 } }, undefined, REQUEST)).toEqual({ content, structuredContent: { sum: 5 } });
      const bad = await client.callTool({ name: "structured_sum", arguments: { a: 2, b: 3, mode: "invalid" } }, undefined, REQUEST);
      expect(bad.isError).toBe(true);
      expect(bad.structuredContent).toBeUndefined();
      expect(bad.content).toEqual([{ type: "text", text: 'Tool "structured_sum" returned output that does not match its outputSchema: /sum: must be number' }]);
      await client.close();
      wire();
    },
    TIMEOUT,
  );

  it.each(["auto", "legacy"] as const)(
    "v2 (%s) receives the content next to structuredContent, and an invalid structured part is refused",
    async (mode) => {
      const client = await connectV2(FIXTURE_SERVER, mode);
      expect(await client.callTool({ name: "structured_sum", arguments: { a: 2, b: 3 } }, REQUEST)).toMatchObject({ content, structuredContent: { sum: 5 } });
      const bad = await client.callTool({ name: "structured_sum", arguments: { a: 2, b: 3, mode: "invalid" } }, REQUEST);
      expect(bad.isError).toBe(true);
      expect(bad.structuredContent).toBeUndefined();
      await client.close();
      wire();
    },
    TIMEOUT,
  );
});

describe("MCP Inspector CLI", () => {
  /** Runs the inspector against `server`, behind a fresh wiretap. */
  function inspect(server: ServerCommand, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    tap = new WireTap();
    return runInspector(tap.wrap(server), args, (kill) => closers.push(async () => kill()));
  }

  it(
    "lists the tools of the server under test",
    async () => {
      const { code, stdout, stderr } = await inspect(serverUnderTest(), ["--method", "tools/list"]);
      expect(code, stderr).toBe(0);
      expect((JSON.parse(stdout) as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
      expect(negotiated(wire())).toBe("2025-11-25");
    },
    TIMEOUT,
  );

  it(
    "calls a tool",
    async () => {
      const { code, stdout, stderr } = await inspect(FIXTURE_SERVER, ["--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=hello", "--tool-arg", "times=2"]);
      expect(code, stderr).toBe(0);
      expect(JSON.parse(stdout)).toEqual({ content: [{ type: "text", text: "hellohello" }] });
      const [process] = wire();
      // the inspector raises the log level when the server offers logging
      expect(process?.fromClient).toContainEqual(expect.objectContaining({ method: "logging/setLevel" }));
    },
    TIMEOUT,
  );
});
