/**
 * The transport-agnostic core, driven in-process with the fixture registry mcpgen builds from
 * test/runtime/fixture-schemas/core. Every message it emits is checked against the spec schema of the
 * version in force (see helpers/core.ts).
 */
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { createServer, ERROR_TABLE, resolveServerOptions, structured, ToolError, type Registry } from "../../packages/runtime/src/index.js";
import { ToolCall } from "../../packages/runtime/src/call.js";
import { Pending } from "../../packages/runtime/src/pending.js";
import { describeValidationErrors } from "../../packages/runtime/src/validation.js";
import { loads, registry } from "./helpers/fixtures.js";
import { until } from "../helpers/wait.js";
import { Harness, type Message } from "./helpers/core.js";
import { builtFixture } from "./helpers/e2e.js";
import { assertServerMessage } from "./helpers/spec.js";

const LISTED = registry.tools.filter((tool) => !tool.hidden).map((tool) => tool.name);

describe("JSON-RPC framing", () => {
  const cases: { name: string; message: unknown; id?: string | number }[] = [
    { name: "a number", message: 42 },
    { name: "null", message: null },
    { name: "no jsonrpc member", message: { id: 1, method: "ping" }, id: 1 },
    { name: "jsonrpc 1.0", message: { jsonrpc: "1.0", id: "a", method: "ping" }, id: "a" },
    { name: "no method", message: { jsonrpc: "2.0", id: 2 }, id: 2 },
    { name: "a numeric method", message: { jsonrpc: "2.0", id: 3, method: 7 }, id: 3 },
    { name: "a null id", message: { jsonrpc: "2.0", id: null, method: "ping" } },
    { name: "a fractional id", message: { jsonrpc: "2.0", id: 1.5, method: "ping" } },
    { name: "an object id", message: { jsonrpc: "2.0", id: {}, method: "ping" } },
    { name: "array params", message: { jsonrpc: "2.0", id: 4, method: "ping", params: [1] }, id: 4 },
    { name: "an empty batch", message: [] },
  ];
  it.each(cases)("answers $name with -32600", async ({ message, id }) => {
    const reply = (await new Harness().raw(message)) as Message;
    expect((reply.error as { code: number }).code).toBe(-32600);
    if (id === undefined) expect(reply).not.toHaveProperty("id");
    else expect(reply.id).toBe(id);
  });

  it("never answers notifications, even malformed or unknown ones, nor client responses", async () => {
    const h = new Harness();
    for (const message of [
      { jsonrpc: "2.0", method: "notifications/unknown" },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: "nonsense" },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 999 } },
      { method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 5, result: {} },
      { jsonrpc: "2.0", id: 6, error: { code: 1, message: "x" } },
    ]) {
      expect(await h.raw(message)).toBeUndefined();
    }
  });

  it("answers unknown methods with -32601 in both eras", async () => {
    const modern = new Harness();
    expect((await modern.error("resources/list")).code).toBe(-32601);
    const legacy = new Harness();
    await legacy.initialize();
    expect(await legacy.error("prompts/list")).toEqual({ code: -32601, message: "Method not found: prompts/list" });
  });

  it("answers a 2025-03-26 batch with a batch, notifications contributing nothing", async () => {
    const h = new Harness();
    await h.initialize("2025-03-26");
    const reply = (await h.raw(
      [
        { jsonrpc: "2.0", id: "p", method: "ping" },
        { jsonrpc: "2.0", method: "notifications/whatever" },
        { jsonrpc: "2.0", id: "c", method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } },
      ],
      undefined,
    )) as Message[];
    expect(reply.map((r) => r.id)).toEqual(["p", "c"]);
    expect(Harness.text(reply[1]?.result as Message)).toBe("hi");
  });

  it("maps every error kind through one table", () => {
    expect(Object.fromEntries(Object.entries(ERROR_TABLE).map(([kind, spec]) => [kind, spec.code]))).toEqual({
      parseError: -32700,
      invalidRequest: -32600,
      methodNotFound: -32601,
      invalidParams: -32602,
      internalError: -32603,
      unsupportedProtocolVersion: -32022,
      missingRequiredClientCapability: -32021,
      resourceNotFound: -32002,
      headerMismatch: -32020,
      badRequest: -32000,
      sessionNotFound: -32001,
      unauthorized: -32000,
      forbidden: -32000,
      notFound: -32000,
      methodNotAllowed: -32000,
      notAcceptable: -32000,
      conflict: -32000,
      gone: -32000,
      payloadTooLarge: -32000,
      unsupportedMediaType: -32000,
      serviceUnavailable: -32000,
    });
  });
});

describe("2025 era: initialize and the session", () => {
  it.each([
    ["2025-03-26", "2025-03-26"],
    ["2025-06-18", "2025-06-18"],
    ["2025-11-25", "2025-11-25"],
    ["2024-11-05", "2025-11-25"],
    ["2026-07-28", "2025-11-25"],
    ["not-a-version", "2025-11-25"],
  ])("answers a client asking for %s with %s", async (requested, answered) => {
    const h = new Harness();
    const result = await h.initialize(requested);
    expect(result).toEqual({
      protocolVersion: answered,
      capabilities: { tools: { listChanged: true }, logging: {} },
      serverInfo: { name: "fixture-server", version: "1.2.3", title: "Fixture server" },
      instructions: "Tools for testing the mcpgen runtime. Start with echo.",
    });
  });

  it("rejects requests before initialize, except ping", async () => {
    const h = new Harness();
    h.version = "2025-11-25";
    const error = await h.error("tools/list");
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/initialize/);
    expect((await h.error("logging/setLevel", { level: "debug" })).code).toBe(-32602);
    expect(await h.result("ping")).toEqual({});
  });

  it("rejects a second initialize and an initialize without protocolVersion", async () => {
    const bare = new Harness();
    bare.version = "2025-11-25";
    expect((await bare.error("initialize", { capabilities: {} })).code).toBe(-32602);
    const h = new Harness();
    await h.initialize();
    expect((await h.error("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } })).code).toBe(-32600);
  });

  it("answers ping and keeps client info and capabilities for the handlers", async () => {
    const h = new Harness();
    await h.initialize("2025-06-18");
    expect(await h.result("ping")).toEqual({});
    const context = JSON.parse(Harness.text(await h.call("context", {}, { "com.example/trace": "t1" }))) as Message;
    expect(context).toMatchObject({
      protocolVersion: "2025-06-18",
      clientInfo: { name: "mcpgen-test", version: "0.0.1" },
      clientCapabilities: {},
      meta: { "com.example/trace": "t1" },
      aborted: false,
    });
    expect(typeof context.requestId).toBe("number");
  });
});

describe("2026 era: stateless requests", () => {
  it("serves server/discover", async () => {
    const result = await new Harness().result("server/discover");
    expect(result).toEqual({
      resultType: "complete",
      supportedVersions: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"],
      capabilities: { tools: { listChanged: true }, logging: {} },
      instructions: "Tools for testing the mcpgen runtime. Start with echo.",
      ttlMs: 300_000,
      cacheScope: "public",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "fixture-server", version: "1.2.3", title: "Fixture server" } },
    });
  });

  it.each([
    ["an unknown version", "1900-01-01"],
    ["a 2025 version without initialize", "2025-06-18"],
  ])("answers %s with UnsupportedProtocolVersionError", async (_name, requested) => {
    const error = await new Harness().error("tools/list", {}, { "io.modelcontextprotocol/protocolVersion": requested });
    expect(error).toEqual({
      code: -32022,
      message: `Unsupported protocol version: ${requested}`,
      data: { requested, supported: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"] },
    });
  });

  it.each([
    ["missing client capabilities", { "io.modelcontextprotocol/clientCapabilities": undefined }, /clientCapabilities/],
    ["client capabilities that are not an object", { "io.modelcontextprotocol/clientCapabilities": "all" }, /clientCapabilities/],
    ["client info without a version", { "io.modelcontextprotocol/clientInfo": { name: "x" } }, /clientInfo/],
    ["an unknown log level", { "io.modelcontextprotocol/logLevel": "loud" }, /logLevel/],
  ])("answers a request with %s with -32602", async (_name, meta, pattern) => {
    const error = await new Harness().error("tools/list", {}, meta);
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(pattern);
  });

  it("has no ping, logging/setLevel or initialize-free legacy methods", async () => {
    const h = new Harness();
    expect((await h.error("ping")).code).toBe(-32601);
    expect((await h.error("logging/setLevel", { level: "debug" })).code).toBe(-32601);
  });

  it("puts resultType, ttlMs, cacheScope and serverInfo on results; the tool order is deterministic", async () => {
    const h = new Harness({ ttlMs: 1234, cacheScope: "private" });
    const brief = { name: registry.server.name, version: registry.server.version };
    const list = await h.result("tools/list");
    expect(list).toMatchObject({ resultType: "complete", ttlMs: 1234, cacheScope: "private" });
    expect((list._meta as Message)["io.modelcontextprotocol/serverInfo"]).toEqual(brief);
    expect((list.tools as { name: string }[]).map((t) => t.name)).toEqual([...LISTED].sort());
    const call = await h.call("echo", { text: "hi" });
    expect(call).toEqual({
      resultType: "complete",
      content: [{ type: "text", text: "hi" }],
      _meta: { "io.modelcontextprotocol/serverInfo": brief },
    });
    expect(await h.call("full")).toEqual({
      resultType: "complete",
      content: [{ type: "text", text: "quota exceeded, try tomorrow" }],
      isError: true,
      _meta: { "com.example/quota": 0, "io.modelcontextprotocol/serverInfo": brief },
    });
  });

  it("sends the server info on results briefly by default, whole or not at all when configured; discovery carries it whole", async () => {
    expect(Object.keys(registry.server).length).toBeGreaterThan(2); // the fixture has more than name and version
    const server = (result: Message) => (result._meta as Message | undefined)?.["io.modelcontextprotocol/serverInfo"];
    const brief = new Harness();
    expect(server(await brief.result("server/discover"))).toEqual(registry.server);
    expect(server(await brief.call("echo", { text: "hi" }))).toEqual({ name: registry.server.name, version: registry.server.version });
    const full = new Harness({ resultServerInfo: "full" });
    expect(server(await full.call("echo", { text: "hi" }))).toEqual(registry.server);
    const none = new Harness({ resultServerInfo: "none" });
    expect(await none.call("echo", { text: "hi" })).toEqual({ resultType: "complete", content: [{ type: "text", text: "hi" }] });
    expect(await none.result("tools/list")).not.toHaveProperty("_meta");
    expect(await none.result("server/discover")).not.toHaveProperty("_meta");
    expect(await none.call("full")).toMatchObject({ _meta: { "com.example/quota": 0 } });
    expect(server(await none.call("full"))).toBeUndefined();
    expect(() => new Harness({ resultServerInfo: "all" as "full" })).toThrow(/resultServerInfo must be/);
  });

  it("gives handlers the request's own client info, capabilities and version", async () => {
    const h = new Harness();
    const caps = { sampling: {} };
    const context = JSON.parse(
      Harness.text(await h.call("context", {}, { "io.modelcontextprotocol/clientCapabilities": caps, "io.modelcontextprotocol/clientInfo": { name: "a", version: "2" } })),
    ) as Message;
    expect(context).toMatchObject({ protocolVersion: "2026-07-28", clientInfo: { name: "a", version: "2" }, clientCapabilities: caps });
  });

  it("serves both eras on one connection", async () => {
    const h = new Harness();
    await h.initialize("2025-06-18");
    expect(Harness.text(await h.call("echo", { text: "legacy" }))).toBe("legacy");
    h.version = "2026-07-28";
    expect(await h.call("echo", { text: "modern" })).toMatchObject({ resultType: "complete" });
    expect((await h.result("server/discover")).resultType).toBe("complete");
  });

  it.each([
    ["no log level: no log messages at all", undefined, []],
    ["warning", "warning", ["warning", "error"]],
    ["debug", "debug", ["debug", "info", "warning", "error"]],
  ])("sends log messages per request: %s", async (_name, level, expected) => {
    const h = new Harness();
    await h.call("log", {}, level ? { "io.modelcontextprotocol/logLevel": level } : {});
    expect(h.notifications.map((n) => (n.params as { level: string }).level)).toEqual(expected);
  });
});

describe("2025 era: logging/setLevel", () => {
  it.each([
    ["the default (info)", undefined, ["info", "warning", "error"]],
    ["error", "error", ["error"]],
    ["debug", "debug", ["debug", "info", "warning", "error"]],
  ])("filters log messages at %s", async (_name, level, expected) => {
    const h = new Harness();
    await h.initialize();
    if (level) expect(await h.result("logging/setLevel", { level })).toEqual({});
    await h.call("log");
    expect(h.notifications.map((n) => (n.params as { level: string }).level)).toEqual(expected);
    const warning = h.notifications.find((n) => (n.params as { level: string }).level === "warning");
    if (expected.includes("warning")) expect(warning?.params).toEqual({ level: "warning", data: "careful", logger: "fixture" });
  });

  it("rejects an unknown level", async () => {
    const h = new Harness();
    await h.initialize();
    expect((await h.error("logging/setLevel", { level: "verbose" })).code).toBe(-32602);
  });
});

describe("a tool's metadata as JSON text (what generated registries hold)", () => {
  const echo = registry.tools.find((tool) => tool.name === "echo") as Registry["tools"][number];
  const base = (typeof echo.wire === "string" ? JSON.parse(echo.wire) : echo.wire) as Record<string, unknown>;
  const withWire = (wire: string): Registry => ({ ...registry, tools: [{ ...echo, wire }] });

  it("is not parsed at start-up", () => {
    expect(() => createServer(withWire("{ not JSON, never read until a call needs it"))).not.toThrow();
  });

  it("is read for a call's needs once, not on every call", async () => {
    let reads = 0;
    const text = JSON.stringify(base);
    const counted = { ...registry, tools: [Object.defineProperty({ ...echo }, "wire", { get: () => (reads++, text), enumerable: true })] } as Registry;
    const h = new Harness({ registry: counted });
    await h.initialize();
    for (let i = 0; i < 5; i++) expect(Harness.text(await h.call("echo", { text: `t${i}` }))).toBe(`t${i}`);
    const afterCalls = reads;
    for (let i = 0; i < 5; i++) await h.call("echo", { text: "again" });
    expect(reads).toBe(afterCalls);
  });

  it("tells a task tool from one whose text only mentions the member", async () => {
    const capabilities = async (r: Registry) => (await new Harness({ registry: r }).initialize()).capabilities as Record<string, unknown>;
    const mentions = withWire(JSON.stringify({ ...base, description: 'Says "taskSupport" and has none.' }));
    expect((await capabilities(mentions)).tasks).toBeUndefined();
    expect((await capabilities(withWire(JSON.stringify({ ...base, execution: { taskSupport: "optional" } })))).tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const h = new Harness({ registry: mentions });
    await h.initialize();
    expect(Harness.text(await h.call("echo", { text: "hi" }))).toBe("hi");
    expect((await h.result("tools/list")).tools).toEqual([JSON.parse(mentions.tools[0]!.wire as string)]);
  });
});

describe("tools/list pagination", () => {
  for (const era of ["2025-11-25", "2026-07-28"] as const) {
    it(`walks ${era} pages of 5 with opaque cursors`, async () => {
      const h = new Harness({ pageSize: 5 });
      if (era !== "2026-07-28") await h.initialize(era);
      const names: string[] = [];
      const sizes: number[] = [];
      let cursor: string | undefined;
      do {
        const page = await h.result("tools/list", cursor === undefined ? {} : { cursor });
        const tools = page.tools as { name: string }[];
        names.push(...tools.map((t) => t.name));
        sizes.push(tools.length);
        cursor = page.nextCursor as string | undefined;
      } while (cursor !== undefined);
      expect(names).toEqual(LISTED);
      expect(sizes).toEqual([5, 5, 5]);
      expect(names).not.toContain("hidden_tool");
    });
  }

  it.each([["nope"], [""], ["aGlkZGVuX3Rvb2w"], [42]])("answers the invalid cursor %j with -32602", async (cursor) => {
    const error = await new Harness().error("tools/list", { cursor });
    expect(error).toEqual({ code: -32602, message: "Invalid cursor" });
  });

  it("sends the listed tools' wire metadata byte for byte, in one page by default", async () => {
    const h = new Harness();
    await h.initialize();
    const reply = await h.conn.handle({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    assertServerMessage(JSON.parse(reply as string), "2025-11-25", { method: "tools/list" });
    const wires = registry.tools.filter((t) => !t.hidden).map((t) => (typeof t.wire === "string" ? (JSON.parse(t.wire) as unknown) : t.wire));
    expect(reply).toBe(`{"jsonrpc":"2.0","id":1,"result":{"tools":${JSON.stringify(wires)}}}`);
  });

  it("sends every tool in one page unless a page size is set", async () => {
    const { registry: wide } = (await import(pathToFileURL(builtFixture("wide").registry).href)) as { registry: Registry };
    const page = await new Harness({ registry: wide }).result("tools/list");
    expect(page.tools).toHaveLength(150);
    expect(page).not.toHaveProperty("nextCursor");
    const paged = await new Harness({ registry: wide, pageSize: 100 }).result("tools/list");
    expect(paged.tools).toHaveLength(100);
    expect(typeof paged.nextCursor).toBe("string");
  });

  it("resolves options in one place and rejects bad ones", () => {
    expect(resolveServerOptions({})).toMatchObject({ pageSize: Infinity, ttlMs: 300_000, cacheScope: "public" });
    expect(resolveServerOptions({ pageSize: Infinity }).pageSize).toBe(Infinity);
    expect(() => resolveServerOptions({ pageSize: 0 })).toThrow(RangeError);
    expect(() => resolveServerOptions({ pageSize: 2.5 })).toThrow(RangeError);
    expect(() => resolveServerOptions({ ttlMs: -1 })).toThrow(RangeError);
  });
});

describe("tools/call", () => {
  /** A harness whose tools are the fixture's `echo` (schemas and all) under other names, with these handlers. */
  const withHandlers = (handlers: Record<string, (args: { text: string }) => unknown>): Harness => {
    const echo = registry.tools.find((tool) => tool.name === "echo") as Registry["tools"][number];
    const wire = (typeof echo.wire === "string" ? JSON.parse(echo.wire) : echo.wire) as object;
    const tools = Object.entries(handlers).map(([name, handler]) => ({ ...echo, name, wire: { ...wire, name }, handler: () => Promise.resolve({ default: handler }) }));
    return new Harness({ registry: { ...registry, tools } as unknown as Registry });
  };

  it.each([
    ["an unknown tool", { name: "nope" }, { code: -32602, message: "Unknown tool: nope" }],
    ["no name", { arguments: {} }, { code: -32602, message: 'Invalid params: tools/call needs a string "name"' }],
    ["arguments that are not an object", { name: "echo", arguments: [1] }, { code: -32602, message: 'Invalid params: "arguments" must be an object' }],
  ])("answers %s with a JSON-RPC error", async (_name, params, expected) => {
    const h = new Harness();
    await h.initialize();
    expect(await h.error("tools/call", params)).toEqual(expected);
  });

  it.each([
    ["a missing property", {}, "Invalid arguments: /text: is required"],
    ["a wrong type", { text: 5 }, "Invalid arguments: /text: must be string"],
    ["an unknown property", { text: "a", extra: true }, "Invalid arguments: /extra: unknown property (not allowed)"],
    ["a value outside an enum", { text: "a", mode: "loud" }, 'Invalid arguments: /mode: must be one of "plain", "upper"'],
    ["a message-less validator error", { text: "a", times: 0 }, "Invalid arguments: /times: must be >= 1"],
    ["several problems", { text: 1, mode: "x" }, 'Invalid arguments: /text: must be string; /mode: must be one of "plain", "upper"'],
  ])("reports %s as an isError result naming the field", async (_name, args, text) => {
    const h = new Harness();
    await h.initialize();
    expect(await h.call("echo", args)).toEqual({ content: [{ type: "text", text }], isError: true });
  });

  it("shapes what handlers return, per the handler contract", async () => {
    const h = new Harness();
    await h.initialize("2025-06-18");
    expect(await h.call("echo", { text: "hi", mode: "upper", times: 2 })).toEqual({ content: [{ type: "text", text: "HIHI" }] });
    expect(await h.call("add", { a: 1, b: 2 })).toEqual({ content: [{ type: "text", text: '{"sum":3}' }], structuredContent: { sum: 3 } });
    expect(await h.call("blocks")).toEqual({
      content: [
        { type: "text", text: "a red pixel" },
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      ],
    });
    expect(await h.call("full")).toEqual({ content: [{ type: "text", text: "quota exceeded, try tomorrow" }], isError: true, _meta: { "com.example/quota": 0 } });
    expect(await h.call("hidden_tool")).toEqual({ content: [{ type: "text", text: "you found me" }] });
  });

  it("answers at once when the handler does, and as a Pending when it awaits", async () => {
    const handlers = {
      sync: ({ text }: { text: string }) => `now: ${text}`,
      async: async ({ text }: { text: string }) => `later: ${text}`,
      throws: () => {
        throw new ToolError("no");
      },
    };
    const h = withHandlers(handlers);
    await h.initialize();
    const call = (name: string) => h.conn.handle({ jsonrpc: "2.0", id: h.id(), method: "tools/call", params: { name, arguments: { text: "hi" } } });
    for (const name of Object.keys(handlers)) await call(name); // each handler module loads on its first call
    const sync = call("sync");
    expect(typeof sync).toBe("string");
    expect(JSON.parse(sync as string).result).toEqual({ content: [{ type: "text", text: "now: hi" }] });
    expect(JSON.parse(call("throws") as string).result).toEqual({ content: [{ type: "text", text: "no" }], isError: true });
    const later = call("async");
    expect(later).toBeInstanceOf(Pending);
    expect(JSON.parse((await later) as string).result).toEqual({ content: [{ type: "text", text: "later: hi" }] });
    // The id of an answered call is free again at once.
    expect(JSON.parse(h.conn.handle({ jsonrpc: "2.0", id: 99, method: "tools/call", params: { name: "sync", arguments: { text: "a" } } }) as string).id).toBe(99);
    expect(JSON.parse(h.conn.handle({ jsonrpc: "2.0", id: 99, method: "tools/call", params: { name: "sync", arguments: { text: "b" } } }) as string).result.content[0].text).toBe("now: b");
  });

  it("answers a handler's thenable by what settles first, and one whose then() throws as a failing handler", async () => {
    const handlers = {
      throwing: () => ({
        then() {
          throw new Error("no then");
        },
      }),
      twice: () => ({
        then(fulfil: (value: string) => void, reject: (error: unknown) => void) {
          fulfil("first");
          reject(new Error("second"));
          fulfil("third");
        },
      }),
    };
    const h = withHandlers(handlers);
    await h.initialize();
    expect(await h.call("throwing", { text: "x" })).toEqual({ content: [{ type: "text", text: 'Tool "throwing" failed with an internal error (Error); the details were logged on the server.' }], isError: true });
    expect(h.errors).toHaveLength(1);
    expect(await h.call("twice", { text: "x" })).toEqual({ content: [{ type: "text", text: "first" }] });
  });

  it("answers -32603 with the call's id when the runtime fails after an awaited handler, and frees the id", async () => {
    const h = withHandlers({
      rejects: async ({ text }: { text: string }) => {
        await Promise.resolve();
        throw new Error(text);
      },
    });
    await h.initialize();
    const call = (id: number) => h.conn.handle({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "rejects", arguments: { text: "boom" } } });
    expect(JSON.parse((await call(1)) as string).result.isError).toBe(true); // loads the handler
    // A bug on the way to the response, simulated: answering a failed handler throws.
    const fail = Object.getOwnPropertyDescriptor(ToolCall.prototype, "fail") as PropertyDescriptor;
    Object.defineProperty(ToolCall.prototype, "fail", { ...fail, value: () => { throw new TypeError("a bug"); } });
    const original = console.error;
    const logged: unknown[][] = [];
    console.error = (...args: unknown[]) => void logged.push(args);
    try {
      const reply = call(2);
      expect(reply).toBeInstanceOf(Pending);
      expect(await reply).toBe('{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error"}}');
    } finally {
      Object.defineProperty(ToolCall.prototype, "fail", fail);
      console.error = original;
    }
    expect(logged).toEqual([["[mcpgen] internal error:", new TypeError("a bug")]]);
    // The id is free again, and the connection goes on answering.
    expect(JSON.parse((await call(2)) as string).result).toEqual({ content: [{ type: "text", text: 'Tool "rejects" failed with an internal error (Error); the details were logged on the server.' }], isError: true });
  });

  it("never lets invalid output through as structuredContent", async () => {
    const h = new Harness();
    await h.initialize();
    const result = await h.call("bad_output");
    expect(result).not.toHaveProperty("structuredContent");
    expect(result.isError).toBe(true);
    expect(Harness.text(result)).toBe('Tool "bad_output" returned output that does not match its outputSchema: /sum: must be number');
    expect(h.errors).toHaveLength(1);
  });

  it("sends the content a handler gave with structured() next to its validated structuredContent", async () => {
    const h = new Harness();
    await h.initialize();
    const reply = await h.conn.handle({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "structured_sum", arguments: { a: 2, b: 3 } } });
    assertServerMessage(JSON.parse(reply as string), "2025-11-25", { method: "tools/call" });
    const content = [{ type: "text", text: "2 + 3 = 5" }, { type: "text", text: "Computed exactly.", annotations: { audience: ["user"] } }];
    expect(reply).toBe(JSON.stringify({ jsonrpc: "2.0", id: 7, result: { content, structuredContent: { sum: 5 } } }));
  });

  it("refuses a structured() value that breaks the outputSchema, content and all", async () => {
    const h = new Harness();
    await h.initialize();
    const result = await h.call("structured_sum", { a: 2, b: 3, mode: "invalid" });
    expect(result).toEqual({ content: [{ type: "text", text: 'Tool "structured_sum" returned output that does not match its outputSchema: /sum: must be number' }], isError: true });
    expect(h.errors).toHaveLength(1);
  });

  it("takes a plain value with content and structuredContent members for the structured value itself", async () => {
    const h = new Harness();
    await h.initialize();
    const value = { sum: 5, structuredContent: "not a wrapper", content: [{ type: "text", text: "not a wrapper either" }] };
    expect(await h.call("structured_sum", { a: 2, b: 3, mode: "lookalike" })).toEqual({ content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value });
  });

  it("structured() takes text or content blocks", () => {
    expect(structured({ sum: 1 }, "one")).toEqual({ structuredContent: { sum: 1 }, content: [{ type: "text", text: "one" }] });
    expect(() => structured({ sum: 1 }, { type: "text", text: "one" } as never)).toThrow(TypeError);
  });

  it("does not output-validate isError results, and passes ToolError messages through", async () => {
    const h = new Harness();
    await h.initialize();
    expect(await h.call("divide", { a: 1, b: 0 })).toEqual({ content: [{ type: "text", text: "Cannot divide by zero; pass a non-zero b." }], isError: true });
    expect(await h.call("fail")).toEqual({ content: [{ type: "text", text: 'City "Atlantis" not found; pass a real city name such as "Paris".' }], isError: true });
    expect(h.errors).toEqual([]);
  });

  it.each([
    ["crash", "Error"],
    ["wrong_return", "TypeError"],
    ["broken_module", "Error"],
  ])("turns an unexpected failure of %s into a generic isError result and reports it", async (tool, kind) => {
    const h = new Harness();
    await h.initialize();
    const result = await h.call(tool);
    expect(result).toEqual({
      content: [{ type: "text", text: `Tool "${tool}" failed with an internal error (${kind}); the details were logged on the server.` }],
      isError: true,
    });
    expect(JSON.stringify(result)).not.toMatch(/hunter2|at .*\.mjs/);
    expect(h.errors).toHaveLength(1);
  });

  it("recognizes ToolErrors from this copy of the runtime too", async () => {
    const tool = registry.tools.find((t) => t.name === "fail");
    const custom: Registry = {
      ...registry,
      tools: [{ ...(tool as Registry["tools"][number]), handler: async () => ({ default: async () => { throw new ToolError("own copy"); } }) }],
    };
    const h = new Harness({ registry: custom });
    expect(Harness.text(await h.call("fail"))).toBe("own copy");
  });

  it("loads validators and handlers lazily, once per tool", async () => {
    const before = { ...loads };
    const h = new Harness();
    await h.initialize();
    await h.result("tools/list");
    expect(loads).toEqual(before);
    await Promise.all([h.call("echo", { text: "1" }), h.call("echo", { text: "2" })]);
    await h.call("echo", { text: "3" });
    expect(loads).toEqual({ validators: before.validators + 1, handlers: before.handlers + 1 });
  });

  it("retries a failed load on the next call", async () => {
    let attempts = 0;
    const tool = registry.tools.find((t) => t.name === "echo") as Registry["tools"][number];
    const flaky: Registry = {
      ...registry,
      tools: [{ ...tool, handler: async () => { if (++attempts === 1) throw new Error("EMFILE"); return { default: async () => "ok" }; } }],
    };
    const h = new Harness({ registry: flaky });
    expect((await h.call("echo", { text: "x" })).isError).toBe(true);
    expect(Harness.text(await h.call("echo", { text: "x" }))).toBe("ok");
  });

  it("answers concurrent calls by id, as each finishes", async () => {
    const h = new Harness();
    await h.initialize();
    const order: string[] = [];
    const slow = h.call("slow", { steps: 1, delayMs: 50 }).then((r) => order.push(Harness.text(r)));
    const fast = h.call("echo", { text: "fast" }).then((r) => order.push(Harness.text(r)));
    await Promise.all([slow, fast]);
    expect(order).toEqual(["fast", "finished 1 steps"]);
  });

  it("refuses a second request with the id of one still in flight", async () => {
    const h = new Harness();
    await h.initialize();
    const first = h.raw({ jsonrpc: "2.0", id: "dup", method: "tools/call", params: { name: "slow", arguments: { steps: 1, delayMs: 30 } } }, "tools/call");
    const second = (await h.raw({ jsonrpc: "2.0", id: "dup", method: "tools/call", params: { name: "echo", arguments: { text: "x" } } }, "tools/call")) as Message;
    expect((second.error as Message).code).toBe(-32600);
    expect(Harness.text((await first as Message).result as Message)).toBe("finished 1 steps");
  });
});

describe("progress", () => {
  it.each([["a string token", "tok-1"], ["a number token", 7]])("reports increasing progress for %s", async (_name, token) => {
    const h = new Harness();
    await h.initialize();
    await h.call("slow", { steps: 3, delayMs: 1 }, { progressToken: token });
    expect(h.notifications).toEqual(
      [1, 2, 3].map((step) => ({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: token, progress: step, total: 3, message: `step ${step} of 3` },
      })),
    );
  });

  it("sends only progress that increases: no repeat, no step back, nothing that is not finite", async () => {
    const steps = [-1, -1, -2, 2, Number.NaN, Number.POSITIVE_INFINITY, 1, 2.5];
    const stepping: Registry = {
      ...registry,
      tools: registry.tools.map((tool) =>
        tool.name !== "slow"
          ? tool
          : {
              ...tool,
              handler: async () => ({
                default: async (_args: unknown, ctx: { progress(progress: number): Promise<void> }) => {
                  for (const step of steps) await ctx.progress(step);
                  return "stepped";
                },
              }),
            },
      ),
    };
    const h = new Harness({ registry: stepping });
    await h.initialize();
    await h.call("slow", {}, { progressToken: "p" });
    expect(h.notifications.map((n) => (n.params as Message).progress)).toEqual([-1, 2, 2.5]);
  });

  it("sends nothing without a progressToken, and works in the 2026 era", async () => {
    const legacy = new Harness();
    await legacy.initialize();
    await legacy.call("slow", { steps: 2, delayMs: 1 });
    expect(legacy.notifications).toEqual([]);
    const modern = new Harness();
    await modern.call("slow", { steps: 2, delayMs: 1 }, { progressToken: "m" });
    expect(modern.notifications.map((n) => (n.params as Message).progress)).toEqual([1, 2]);
  });
});

describe("cancellation", () => {
  it("aborts the handler's signal, sends no response and no more progress", async () => {
    const h = new Harness();
    await h.initialize();
    const reply = h.raw({ jsonrpc: "2.0", id: 10, method: "tools/call", params: { name: "slow", arguments: { steps: 100, delayMs: 5 }, _meta: { progressToken: "p" } } });
    await until(() => h.notifications.length > 0, { what: "the first progress notification" });
    expect(await h.raw({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 10, reason: "user hit stop" } })).toBeUndefined();
    expect(await reply).toBeUndefined();
    expect(h.conn.pending).toBe(0);
    // Silence, shown by ordering: a second slow call on the same connection steps at the same pace, so
    // any progress the cancelled call still made would land among the second call's, before its answer.
    const count = h.notifications.length;
    await h.call("slow", { steps: 3, delayMs: 5 }, { progressToken: "after" });
    expect(h.notifications.slice(count).map((n) => (n.params as Message).progressToken)).toEqual(["after", "after", "after"]);
  });

  it("holds a call that waits for the tool-call runtime: its id is in use, and a cancel keeps it from starting", async () => {
    const h = new Harness(); // a fresh server: its first call loads the tool-call runtime
    await h.initialize();
    const waiting = h.raw({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "slow", arguments: { steps: 3, delayMs: 1 }, _meta: { progressToken: "w" } } });
    expect(h.conn.pending).toBe(1);
    const twin = (await h.raw({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "echo", arguments: { text: "twin" } } }, "tools/call")) as Message;
    expect(twin).toMatchObject({ id: 7, error: { code: -32600, message: expect.stringMatching(/already in use/) } });
    expect(await h.raw({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7, reason: "changed my mind" } })).toBeUndefined();
    expect(await waiting).toBeUndefined();
    expect(h.conn.pending).toBe(0);
    // it never ran: the next call's progress is the only progress, and the id is free again
    const after = (await h.call("slow", { steps: 2, delayMs: 1 }, { progressToken: "after" })) as Message;
    expect(after.isError).toBeFalsy();
    expect(h.notifications.map((n) => (n.params as Message).progressToken)).toEqual(["after", "after"]);
    const again = (await h.raw({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "echo", arguments: { text: "free" } } }, "tools/call")) as Message;
    expect(Harness.text(again.result as Message)).toBe("free");
  });

  it("answers nothing for a call that waited for a runtime when its connection closed", async () => {
    const h = new Harness();
    await h.initialize();
    const waiting = h.raw({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow", arguments: { steps: 3, delayMs: 1 }, _meta: { progressToken: 1 } } });
    await h.conn.close();
    expect(await waiting).toBeUndefined();
    expect(h.notifications).toEqual([]);
  });

  it("does not let a handler that ignores cancellation wedge anything", async () => {
    const h = new Harness();
    await h.initialize();
    const started = Date.now();
    const reply = h.raw({ jsonrpc: "2.0", id: "s", method: "tools/call", params: { name: "stubborn", arguments: { ms: 5_000 }, _meta: { progressToken: "s" } } });
    await until(() => h.notifications.length === 1, { what: "the handler to start" });
    await h.raw({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "s" } });
    expect(await reply).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1_000);
    // the id is free again and the connection keeps serving
    const again = (await h.raw({ jsonrpc: "2.0", id: "s", method: "tools/call", params: { name: "echo", arguments: { text: "still here" } } }, "tools/call")) as Message;
    expect(Harness.text(again.result as Message)).toBe("still here");
  });

  it("cancels everything in flight on close, waiting a bounded grace for stubborn handlers", async () => {
    const h = new Harness();
    await h.initialize();
    const polite = h.raw({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow", arguments: { steps: 100, delayMs: 5 }, _meta: { progressToken: 1 } } });
    const stubborn = h.raw({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "stubborn", arguments: { ms: 5_000 }, _meta: { progressToken: 2 } } });
    const running = (token: number): boolean => h.notifications.some((n) => (n.params as Message).progressToken === token);
    await until(() => running(1) && running(2), { what: "both handlers to start" });
    const started = Date.now();
    await h.conn.close(100);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(90);
    expect(elapsed).toBeLessThan(1_000);
    expect(await polite).toBeUndefined();
    expect(await stubborn).toBeUndefined();
    expect(h.conn.handle({ jsonrpc: "2.0", id: 3, method: "ping" })).toBeUndefined();
  });
});

describe("validation messages", () => {
  it.each([
    [[], "/: does not match the schema"],
    [[{ instancePath: "/a~1b", schemaPath: "", keyword: "required", params: { missingProperty: "c/d" } }], "/a~1b/c~1d: is required"],
    [[{ instancePath: "", schemaPath: "", keyword: "const", params: { allowedValue: 3 } }], "/: must be 3"],
    [[{ instancePath: "/n", schemaPath: "", keyword: "type", params: { type: ["string", "null"] } }], "/n: must be string or null"],
    [[{ instancePath: "/s", schemaPath: "", keyword: "pattern", params: { pattern: "^a" } }], '/s: must match pattern "^a"'],
    [[{ instancePath: "/s", schemaPath: "", keyword: "format", params: { format: "email" }, message: 'must match format "email"' }], '/s: must match format "email"'],
    [
      Array.from({ length: 10 }, (_, i) => ({ instancePath: `/${i}`, schemaPath: "", keyword: "type", params: { type: "string" } })),
      "/0: must be string; /1: must be string; /2: must be string; /3: must be string; /4: must be string; /5: must be string; /6: must be string; /7: must be string; and 2 more",
    ],
  ])("describes %j", (errors, text) => {
    expect(describeValidationErrors(errors)).toBe(text);
  });
});

describe("the server", () => {
  it("refuses a registry of another format", () => {
    expect(() => createServer({ ...registry, format: 1 } as unknown as Registry)).toThrow(/format/);
  });

  it("advertises no tools capability for a registry without tools", async () => {
    const h = new Harness({ registry: { ...registry, tools: [] } });
    expect((await h.result("server/discover")).capabilities).toEqual({ logging: {} });
    expect((await h.result("tools/list")).tools).toEqual([]);
  });
});
