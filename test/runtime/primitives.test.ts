/**
 * Resources, resource templates, prompts, completion and change notifications in the core, both eras, driven
 * in-process against a registry with real (ajv, coercing) validators. Every message the core emits is checked
 * against the spec schema of the version in force.
 */
import { describe, expect, it } from "vitest";
import { audio, createServer, embedded, image, resourceLink, text, toBase64, type ErrorContext } from "../../packages/runtime/src/index.js";
import { completionCalls, promptsOnly, registry } from "./fixtures/primitives.mjs";
import { ENVELOPE, until } from "../helpers/wait.js";
import { Harness, type Message } from "./helpers/core.js";
import { assertServerMessage } from "./helpers/spec.js";

const MODERN = "2026-07-28";
const ERAS = ["2025-11-25", MODERN] as const;
type EraVersion = (typeof ERAS)[number];
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const PNG64 = Buffer.from(PNG).toString("base64");
const SERVER_INFO = { "io.modelcontextprotocol/serverInfo": { name: "primitives-fixture", version: "1.0.0" } };

async function connect(era: string, options: ConstructorParameters<typeof Harness>[0] = {}): Promise<Harness> {
  const h = new Harness({ registry, ...options });
  if (era !== MODERN) await h.initialize(era);
  return h;
}

describe("capabilities", () => {
  const FULL = { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {}, logging: {} };

  it("declares resources, prompts and completions from the registry, in both eras", async () => {
    expect((await new Harness({ registry }).initialize()).capabilities).toEqual(FULL);
    expect((await new Harness({ registry }).result("server/discover")).capabilities).toEqual(FULL);
  });

  it("declares only what a registry has; the other methods do not exist", async () => {
    for (const era of ERAS) {
      const h = await connect(era, { registry: promptsOnly });
      const capabilities = era === MODERN ? (await h.result("server/discover")).capabilities : undefined;
      if (capabilities) expect(capabilities).toEqual({ prompts: { listChanged: true }, logging: {} });
      for (const method of ["resources/list", "resources/templates/list", "resources/read", "completion/complete"]) {
        expect((await h.error(method, { uri: "mem://x" })).code, method).toBe(-32601);
      }
      expect((await h.result("prompts/list")).prompts).toHaveLength(1);
    }
  });
});

describe.each(ERAS)("lists, %s", (era) => {
  const LISTS = [
    ["resources/list", "resources", "uri", registry.resources!.map((r) => r.wire.uri), [3, 3, 3, 2]],
    ["resources/templates/list", "resourceTemplates", "uriTemplate", registry.resourceTemplates!.map((t) => t.wire.uriTemplate), [3, 2]],
    ["prompts/list", "prompts", "name", registry.prompts!.map((p) => p.name), [3, 3, 1]],
  ] as const;

  it.each(LISTS)("walks %s in pages of 3", async (method, key, field, expected, sizes) => {
    const h = await connect(era, { pageSize: 3 });
    const seen: string[] = [];
    const pages: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await h.result(method, cursor === undefined ? {} : { cursor });
      const items = page[key] as Record<string, string>[];
      seen.push(...items.map((item) => item[field]!));
      pages.push(items.length);
      if (era === MODERN) expect(page).toMatchObject({ resultType: "complete", ttlMs: 300_000, cacheScope: "public", _meta: SERVER_INFO });
      cursor = page.nextCursor as string | undefined;
    } while (cursor !== undefined);
    expect(seen).toEqual(expected);
    expect(pages).toEqual(sizes);
  });

  it("sends the registry's payload byte for byte when it fits one page", async () => {
    const h = await connect(era);
    const id = h.id();
    const meta = era === MODERN ? { _meta: ENVELOPE } : {};
    const reply = (await h.conn.handle({ jsonrpc: "2.0", id, method: "resources/list", params: meta })) as string;
    expect(reply).toContain(`"resources":${JSON.stringify(registry.resources!.map((resource) => resource.wire))}`);
  });

  it("refuses a cursor of another list", async () => {
    const h = await connect(era, { pageSize: 3 });
    const cursor = (await h.result("resources/list")).nextCursor as string;
    expect(await h.error("prompts/list", { cursor })).toEqual({ code: -32602, message: "Invalid cursor" });
    expect(await h.error("tools/list", { cursor })).toEqual({ code: -32602, message: "Invalid cursor" });
    expect((await h.result("resources/list", { cursor })).resources).toHaveLength(3);
  });
});

describe.each(ERAS)("resources/read, %s", (era) => {
  const READS: [string, string, unknown[]][] = [
    ["inline text, as written", "mem://inline/text", [{ uri: "mem://inline/text", mimeType: "text/plain", text: "hello, inline" }]],
    ["an inline blob, as written", "mem://inline/blob", [{ uri: "mem://inline/blob", mimeType: "application/octet-stream", blob: "AAEC/w==" }]],
    ["a handler's string, with the resource's mimeType", "mem://handler/string", [{ uri: "mem://handler/string", mimeType: "text/markdown", text: "# read mem://handler/string" }]],
    ["a handler's bytes, base64", "mem://handler/bytes", [{ uri: "mem://handler/bytes", mimeType: "image/png", blob: PNG64 }]],
    [
      "a handler's contents",
      "mem://handler/contents",
      [
        { uri: "mem://handler/contents", mimeType: "text/plain", text: "part one" },
        { uri: "mem://handler/contents#2", blob: "AA==" },
      ],
    ],
    ["a handler's full result", "mem://handler/full", [{ uri: "mem://handler/full", text: "cache me" }]],
  ];

  it.each(READS)("serves %s", async (_name, uri, contents) => {
    const h = await connect(era);
    expect((await h.result("resources/read", { uri })).contents).toEqual(contents);
  });

  it("gives handler-read contents no cache lifetime unless the handler says so (2026)", async () => {
    if (era !== MODERN) return;
    const h = await connect(era);
    expect(await h.result("resources/read", { uri: "mem://inline/text" })).toMatchObject({ ttlMs: 300_000, cacheScope: "public", _meta: SERVER_INFO });
    expect(await h.result("resources/read", { uri: "mem://handler/string" })).toMatchObject({ ttlMs: 0, cacheScope: "private", _meta: SERVER_INFO });
    expect(await h.result("resources/read", { uri: "mem://handler/full" })).toMatchObject({
      ttlMs: 5000,
      cacheScope: "public",
      _meta: { "com.example/source": "fixture", ...SERVER_INFO },
    });
  });

  it("gives the handler the URI and the request's context", async () => {
    const h = await connect(era);
    const [content] = (await h.result("resources/read", { uri: "mem://handler/context" })).contents as { text: string }[];
    expect(JSON.parse(content!.text)).toMatchObject({ uri: "mem://handler/context", protocolVersion: era, clientInfo: { name: "mcpgen-test" }, aborted: false });
  });

  const TEMPLATE_READS: [string, string, unknown][] = [
    ["converts a variable its schema declares integer", "mem://items/42", { variables: { id: 42 }, type: "number", uri: "mem://items/42" }],
    ["matches with the optional query variables left out", "mem://search/cats", { term: "cats" }],
    ["matches some of them", "mem://search/cats?offset=5", { term: "cats", offset: 5 }],
    ["matches all of them", "mem://search/cats?limit=3&offset=5", { term: "cats", limit: 3, offset: 5 }],
    ["decodes percent-encoded values (either case of hex digits)", "mem://search/a%20b%2fc", { term: "a b/c" }],
  ];

  it.each(TEMPLATE_READS)("%s", async (_name, uri, expected) => {
    const h = await connect(era);
    const [content] = (await h.result("resources/read", { uri })).contents as { uri: string; text: string }[];
    expect(content!.uri).toBe(uri);
    expect(JSON.parse(content!.text)).toEqual(expected);
  });

  it.each([
    ["mem://files/a/b/c.txt", "file a/b/c.txt"],
    ["mem://any/fixed/1", "fixed=1"], // the more specific template wins over the one first by name
    ["mem://any/other/1", "rest=other/1"],
  ])("routes %s to the right template", async (uri, expected) => {
    const h = await connect(era);
    expect((await h.result("resources/read", { uri })).contents).toEqual([{ uri, mimeType: uri.startsWith("mem://files") ? "text/plain" : undefined, text: expected }].map((c) => JSON.parse(JSON.stringify(c))));
  });

  it.each([
    ["a value its schema refuses", "mem://items/zero", "/id: must be integer"],
    ["a value below its minimum", "mem://items/0", "/id: must be >= 1"],
    ["an encoded slash, decoded and then refused", "mem://items/1%2F..%2F2", "/id: must be integer"],
    ["a query value above its maximum", "mem://search/cats?limit=500", "/limit: must be <= 50"],
    ["a path climbing out through reserved expansion", "mem://files/a/../../etc/passwd", "/path: must match pattern"],
  ])("answers %s with -32602 naming the variable", async (_name, uri, problem) => {
    const h = await connect(era);
    const error = await h.error("resources/read", { uri });
    expect(error.code).toBe(-32602);
    expect(error.message).toContain(problem);
    expect(error.data).toEqual({ uri });
  });

  const notFound = era === MODERN ? -32602 : -32002;
  it.each([
    ["no resource or template has it", "mem://nothing/here"],
    ["a raw slash cannot pass for part of a simple variable", "mem://items/7/extra"],
    ["an unknown query parameter", "mem://search/cats?limit=3&x=1"],
    ["query variables out of template order", "mem://search/cats?offset=1&limit=2"],
    ["encoded dots that reserved expansion would not have produced", "mem://files/a/%2E%2E/etc"],
  ])(`answers %s with the era's not-found code (${notFound})`, async (_name, uri) => {
    const h = await connect(era);
    expect(await h.error("resources/read", { uri })).toEqual({ code: notFound, message: `Resource not found: ${uri}`, data: { uri } });
  });

  it("turns a handler's ToolError into not found with its message, and hides crashes", async () => {
    const errors: unknown[] = [];
    const contexts: ErrorContext[] = [];
    const h = await connect(era, { onError: (error, context) => void (errors.push(error), contexts.push(context)) });
    expect(await h.error("resources/read", { uri: "mem://handler/gone" })).toEqual({
      code: notFound,
      message: "This resource was archived; read mem://inline/text instead.",
      data: { uri: "mem://handler/gone" },
    });
    const crash = await h.error("resources/read", { uri: "mem://handler/crash" });
    expect(crash.code).toBe(-32603);
    expect(crash.message).not.toContain("hunter2");
    const bad = await h.error("resources/read", { uri: "mem://handler/bad" });
    expect(bad.code).toBe(-32603);
    expect(contexts.map((c) => [c.kind, c.tool])).toEqual([
      ["resource", "g_crash"],
      ["resource", "i_bad"],
    ]);
    expect(String(errors[1])).toMatch(/neither text, bytes/);
  });

  it("checks its params", async () => {
    const h = await connect(era);
    expect((await h.error("resources/read", {})).code).toBe(-32602);
    expect((await h.error("resources/read", { uri: 7 })).code).toBe(-32602);
  });
});

it.each(["2025-03-26", "2025-06-18", "2025-11-25"])("answers an unknown URI with -32002 in %s", async (version) => {
  const h = await connect(version);
  expect(await h.error("resources/read", { uri: "mem://missing" })).toEqual({ code: -32002, message: "Resource not found: mem://missing", data: { uri: "mem://missing" } });
});

describe.each(ERAS)("prompts/get, %s", (era) => {
  it("validates and converts the arguments, then renders a string as one user message", async () => {
    const h = await connect(era);
    expect(await h.result("prompts/get", { name: "greet", arguments: { name: "Ada", times: "2" } })).toMatchObject({
      messages: [{ role: "user", content: { type: "text", text: "Hello, Ada!Hello, Ada! (number)" } }],
    });
  });

  it.each([
    ["a missing required argument", {}, "/name: is required"],
    ["a value out of range", { name: "Ada", times: "9" }, "/times: must be <= 3"],
    ["a value not in its enum", { name: "Ada", style: "loud" }, '/style: must be one of "plain", "Fancy", "fanfare"'],
    ["an undeclared argument", { name: "Ada", colour: "red" }, "/colour: unknown property (not allowed)"],
  ])("answers %s with -32602 naming the argument", async (_name, args, problem) => {
    const h = await connect(era);
    const error = await h.error("prompts/get", { name: "greet", arguments: args });
    expect(error.code).toBe(-32602);
    expect(error.message).toBe(`Invalid arguments for prompt "greet": ${problem}`);
  });

  it("answers unknown prompts and malformed params with -32602", async () => {
    const h = await connect(era);
    expect(await h.error("prompts/get", { name: "nope" })).toEqual({ code: -32602, message: "Unknown prompt: nope" });
    expect((await h.error("prompts/get", { name: "greet", arguments: ["Ada"] })).code).toBe(-32602);
    expect((await h.error("prompts/get", {})).code).toBe(-32602);
  });

  it("passes messages made with the content helpers", async () => {
    const h = await connect(era);
    expect((await h.result("prompts/get", { name: "media" })).messages).toEqual([
      { role: "user", content: { type: "text", text: "Look:", annotations: { audience: ["user"], priority: 1, lastModified: "2026-01-02T03:04:05.000Z" } } },
      { role: "user", content: { type: "image", data: PNG64, mimeType: "image/png" } },
      { role: "user", content: { type: "audio", data: "UklGRg==", mimeType: "audio/wav", annotations: { audience: ["assistant"] } } },
      { role: "assistant", content: { type: "resource_link", uri: "mem://inline/text", name: "a_text", mimeType: "text/plain" } },
      { role: "user", content: { type: "resource", resource: { uri: "mem://handler/bytes", mimeType: "image/png", blob: PNG64 }, annotations: { priority: 0.3 } } },
    ]);
  });

  it("passes a full result, its _meta merged with the server's in 2026", async () => {
    const h = await connect(era);
    const result = await h.result("prompts/get", { name: "full" });
    expect(result).toMatchObject({ description: "A full result", messages: [{ role: "assistant", content: { type: "text", text: "Hi." } }] });
    expect(result._meta).toEqual(era === MODERN ? { "com.example/n": 1, ...SERVER_INFO } : { "com.example/n": 1 });
    if (era === MODERN) expect(result.resultType).toBe("complete");
  });

  it("turns a ToolError into -32602 with its message and hides crashes", async () => {
    const contexts: ErrorContext[] = [];
    const h = await connect(era, { onError: (_error, context) => void contexts.push(context) });
    expect(await h.error("prompts/get", { name: "refuse" })).toEqual({ code: -32602, message: "Nothing to greet today; try the greet prompt." });
    const crash = await h.error("prompts/get", { name: "broken" });
    expect(crash.code).toBe(-32603);
    expect(crash.message).not.toContain("secret");
    expect(contexts).toEqual([{ kind: "prompt", tool: "broken", requestId: expect.any(Number) }]);
  });
});

describe("prompts that ask the client", () => {
  it("2026: answers input_required, then renders with the answer on retry", async () => {
    const h = new Harness({ registry });
    const meta = { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } };
    const first = await h.result("prompts/get", { name: "ask" }, meta);
    expect(first).toMatchObject({ resultType: "input_required", inputRequests: { topic: { method: "elicitation/create" } } });
    const second = await h.result(
      "prompts/get",
      { name: "ask", inputResponses: { topic: { action: "accept", content: { topic: "cheese" } } }, requestState: first.requestState },
      meta,
    );
    expect(second).toMatchObject({ resultType: "complete", messages: [{ role: "user", content: { type: "text", text: "Talk about cheese." } }] });
    // a state minted for the prompt is no good for a tool
    const tampered = await h.error("prompts/get", { name: "greet", arguments: { name: "x" }, requestState: first.requestState }, meta);
    expect(tampered.code).toBe(-32602);
  });

  it("2026: without the capability the client gets MissingRequiredClientCapability", async () => {
    expect((await new Harness({ registry }).error("prompts/get", { name: "ask" })).code).toBe(-32021);
  });

  it("2025: asks with elicitation/create on the request's stream", async () => {
    const h = new Harness({ registry });
    h.version = "2025-11-25";
    await h.raw({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: { elicitation: {} }, clientInfo: { name: "x", version: "1" } } }, "initialize");
    const reply = h.conn.handle({ jsonrpc: "2.0", id: 1, method: "prompts/get", params: { name: "ask" } }) as Promise<string>;
    await until(() => h.notifications.some((n) => n.method === "elicitation/create"), { what: "elicitation/create" });
    const ask = h.notifications.find((n) => n.method === "elicitation/create") as Message;
    await h.conn.handle({ jsonrpc: "2.0", id: ask.id, result: { action: "accept", content: { topic: "tea" } } });
    const response = JSON.parse((await reply) as string) as Message;
    assertServerMessage(response, "2025-11-25", { method: "prompts/get" });
    expect(response.result).toMatchObject({ messages: [{ content: { text: "Talk about tea." } }] });
  });
});

describe("resources that ask the client (2026)", () => {
  it("answers input_required, then the contents on retry; the state is bound to the URI", async () => {
    const h = new Harness({ registry });
    const meta = { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } };
    const first = await h.result("resources/read", { uri: "mem://handler/ask" }, meta);
    expect(first).toMatchObject({ resultType: "input_required", inputRequests: { confirm: { method: "elicitation/create" } } });
    const inputResponses = { confirm: { action: "accept", content: { ok: true } } };
    const second = await h.result("resources/read", { uri: "mem://handler/ask", inputResponses, requestState: first.requestState }, meta);
    expect(second).toMatchObject({ resultType: "complete", contents: [{ uri: "mem://handler/ask", text: "the secret" }], ttlMs: 0 });
    const elsewhere = await h.error("resources/read", { uri: "mem://handler/string", inputResponses, requestState: first.requestState }, meta);
    expect(elsewhere).toMatchObject({ code: -32602, message: expect.stringContaining("requestState failed verification") });
  });
});

describe.each(ERAS)("completion/complete, %s", (era) => {
  const complete = async (h: Harness, ref: Record<string, unknown>, name: string, value: string, context?: Record<string, string>) =>
    (await h.result("completion/complete", { ref, argument: { name, value }, ...(context && { context: { arguments: context } }) })).completion;
  const GREET = { type: "ref/prompt", name: "greet" };
  const SEARCH = { type: "ref/resource", uri: "mem://search/{term}{?limit,offset}" };

  it("completes fixed values without code, by prefix, ignoring case", async () => {
    const h = await connect(era);
    expect(await complete(h, GREET, "style", "f")).toEqual({ values: ["Fancy", "fanfare"], total: 2, hasMore: false });
    expect(await complete(h, GREET, "style", "")).toEqual({ values: ["plain", "Fancy", "fanfare"], total: 3, hasMore: false });
    expect(await complete(h, SEARCH, "term", "term14")).toMatchObject({ values: Array.from({ length: 10 }, (_, i) => `term14${i}`), total: 10 });
  });

  it("sends at most 100 values, with total and hasMore", async () => {
    const h = await connect(era);
    const all = (await complete(h, SEARCH, "term", "")) as { values: string[] };
    expect(all).toMatchObject({ total: 150, hasMore: true });
    expect(all.values).toHaveLength(100);
    const many = (await complete(h, { type: "ref/prompt", name: "many" }, "n", "")) as { values: string[] };
    expect(many).toMatchObject({ total: 250, hasMore: true });
    expect(many.values).toEqual(Array.from({ length: 100 }, (_, i) => `n${i}`));
    expect(await complete(h, { type: "ref/prompt", name: "many" }, "m", "")).toEqual({ values: ["m1", "m2"], total: 1000, hasMore: true });
  });

  it("calls completion handlers with the typed value and context.arguments", async () => {
    const h = await connect(era);
    completionCalls.length = 0;
    expect(await complete(h, GREET, "name", "A")).toEqual({ values: ["alan", "ada"], total: 2, hasMore: false });
    expect(await complete(h, GREET, "name", "sir", { style: "Fancy" })).toEqual({ values: ["Sir Alan", "Sir Ada"], total: 2, hasMore: false });
    const ITEM = { type: "ref/resource", uri: "mem://items/{id}" };
    expect((await complete(h, ITEM, "id", "1")) as unknown).toMatchObject({ values: ["100", "101", "102", "103", "104"] });
    expect((await complete(h, ITEM, "id", "20", { shelf: "b" })) as unknown).toMatchObject({ values: ["200", "201", "202", "203", "204"] });
    expect(completionCalls).toEqual([
      { value: "A", context: { arguments: {} } },
      { value: "sir", context: { arguments: { style: "Fancy" } } },
      { value: "1", context: { arguments: {} } },
      { value: "20", context: { arguments: { shelf: "b" } } },
    ]);
  });

  it("answers an argument without completions with no values", async () => {
    const h = await connect(era);
    expect(await complete(h, { type: "ref/prompt", name: "many" }, "none", "x")).toEqual({ values: [], total: 0, hasMore: false });
  });

  it.each([
    ["an unknown prompt", { ref: { type: "ref/prompt", name: "nope" }, argument: { name: "x", value: "" } }, "Unknown prompt: nope"],
    ["an unknown template", { ref: { type: "ref/resource", uri: "mem://items/{nope}" }, argument: { name: "nope", value: "" } }, "Unknown resource template: mem://items/{nope}"],
    ["a static resource's URI", { ref: { type: "ref/resource", uri: "mem://inline/text" }, argument: { name: "x", value: "" } }, "Unknown resource template"],
    ["an undeclared argument", { ref: { type: "ref/prompt", name: "greet" }, argument: { name: "mood", value: "" } }, 'Prompt "greet" has no argument "mood"'],
    ["an undeclared variable", { ref: { type: "ref/resource", uri: "mem://items/{id}" }, argument: { name: "x", value: "" } }, 'has no variable "x"'],
    ["an unknown reference type", { ref: { type: "ref/tool", name: "noop" }, argument: { name: "x", value: "" } }, "Unknown reference type"],
    ["a missing argument", { ref: { type: "ref/prompt", name: "greet" } }, '"argument"'],
    ["context arguments that are not an object", { ref: { type: "ref/prompt", name: "greet" }, argument: { name: "name", value: "" }, context: { arguments: [] } }, "context.arguments"],
  ])("answers %s with -32602", async (_name, params, message) => {
    const h = await connect(era);
    const error = await h.error("completion/complete", params);
    expect(error.code).toBe(-32602);
    expect(error.message).toContain(message);
  });

  it("does not let a completion handler ask the client for input", async () => {
    const h = await connect(era);
    const error = await h.error("completion/complete", { ref: { type: "ref/prompt", name: "many" }, argument: { name: "asks", value: "" } });
    expect(error).toMatchObject({ code: -32602, message: expect.stringContaining("cannot ask the client for input") });
  });

  it("reports a handler returning something else as an internal error", async () => {
    const contexts: ErrorContext[] = [];
    const h = await connect(era, { onError: (_error, context) => void contexts.push(context) });
    expect((await h.error("completion/complete", { ref: { type: "ref/prompt", name: "many" }, argument: { name: "odd", value: "" } })).code).toBe(-32603);
    expect(contexts.map((c) => [c.kind, c.tool])).toEqual([["completion", "many.odd"]]);
  });
});

describe("change notifications, 2025 era", () => {
  const updated = (uri: string): Message => ({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } });

  it("tells the sessions subscribed to a URI, from a handler or the server API, until they unsubscribe", async () => {
    const server = createServer(registry, { onError: () => {} });
    const [a, b] = [new Harness({ server }), new Harness({ server })];
    await a.initialize();
    await b.initialize("2025-06-18");
    expect(await a.result("resources/subscribe", { uri: "mem://items/1" })).toEqual({});
    expect(await a.result("resources/subscribe", { uri: "mem://items/1" })).toEqual({}); // twice is once
    expect(server.subscriptionStats).toEqual({ sessions: 2, uris: 1, subscriptions: 1, listeners: 0 });
    await b.call("touch", { uri: "mem://items/1" }); // b's tool changes what a watches
    server.resourceUpdated("mem://items/2"); // nobody watches this one
    server.resourceUpdated("mem://items/1");
    expect(a.notifications).toEqual([updated("mem://items/1"), updated("mem://items/1")]);
    expect(b.notifications).toEqual([]);
    expect(await a.result("resources/unsubscribe", { uri: "mem://items/1" })).toEqual({});
    expect(await a.result("resources/unsubscribe", { uri: "mem://never" })).toEqual({});
    server.resourceUpdated("mem://items/1");
    expect(a.notifications).toHaveLength(2);
    expect(server.subscriptionStats).toEqual({ sessions: 2, uris: 0, subscriptions: 0, listeners: 0 });
  });

  it("tells every session about list changes of the kinds the server has", async () => {
    const server = createServer(registry, { onError: () => {} });
    const [a, b] = [new Harness({ server }), new Harness({ server })];
    await a.initialize();
    await b.initialize("2025-03-26");
    await a.call("touch", { list: "prompts" });
    server.listChanged("tools");
    server.listChanged("resources");
    const methods = ["notifications/prompts/list_changed", "notifications/tools/list_changed", "notifications/resources/list_changed"];
    expect(a.notifications.map((n) => n.method)).toEqual(methods);
    expect(b.notifications.map((n) => n.method)).toEqual(methods);
    const onlyPrompts = createServer(promptsOnly);
    const c = new Harness({ server: onlyPrompts });
    await c.initialize();
    onlyPrompts.listChanged("tools"); // it has no tools, and did not declare tools.listChanged
    onlyPrompts.listChanged("resources");
    onlyPrompts.listChanged("prompts");
    expect(c.notifications.map((n) => n.method)).toEqual(["notifications/prompts/list_changed"]);
  });

  it("forgets a session when its connection closes", async () => {
    const server = createServer(registry);
    const a = new Harness({ server });
    await a.initialize();
    await a.result("resources/subscribe", { uri: "mem://a" });
    await a.result("resources/subscribe", { uri: "mem://b" });
    expect(server.subscriptionStats).toEqual({ sessions: 1, uris: 2, subscriptions: 2, listeners: 0 });
    await a.conn.close();
    expect(server.subscriptionStats).toEqual({ sessions: 0, uris: 0, subscriptions: 0, listeners: 0 });
    server.resourceUpdated("mem://a");
    server.listChanged("tools");
    expect(a.notifications).toEqual([]);
  });

  it("bounds subscriptions per session and checks params", async () => {
    const h = await connect("2025-11-25", { maxSubscriptions: 2 });
    await h.result("resources/subscribe", { uri: "mem://1" });
    await h.result("resources/subscribe", { uri: "mem://2" });
    expect(await h.error("resources/subscribe", { uri: "mem://3" })).toEqual({ code: -32600, message: "Invalid Request: a session may subscribe to at most 2 resources" });
    expect((await h.error("resources/subscribe", {})).code).toBe(-32602);
    expect((await h.error("resources/unsubscribe", { uri: 3 })).code).toBe(-32602);
  });

  it("refuses subscriptions on a one-exchange (stateless) connection, which is no session", async () => {
    const server = createServer(registry);
    const conn = server.connect({ send: () => {} }, { ephemeral: true });
    await conn.handle({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } } });
    const reply = JSON.parse((await conn.handle({ jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: "mem://1" } })) as string) as Message;
    expect(reply.error).toMatchObject({ code: -32600 });
    expect(server.subscriptionStats.sessions).toBe(0);
  });

  it("has no subscriptions/listen, as 2026 has no resources/subscribe", async () => {
    expect((await (await connect("2025-11-25")).error("subscriptions/listen", { notifications: {} })).code).toBe(-32601);
    expect((await new Harness({ registry }).error("resources/subscribe", { uri: "mem://1" })).code).toBe(-32601);
  });
});

describe("change notifications, 2026 era (subscriptions/listen)", () => {
  const listen = (h: Harness, id: string | number, notifications: unknown) =>
    h.conn.handle({ jsonrpc: "2.0", id, method: "subscriptions/listen", params: { _meta: ENVELOPE, notifications } }) as Promise<string | undefined>;

  it("acknowledges what it honors first, then delivers only that, tagged with the subscription id", async () => {
    const server = createServer(registry);
    const h = new Harness({ server });
    const legacy = new Harness({ server });
    await legacy.initialize();
    const reply = listen(h, "L1", { toolsListChanged: true, resourceSubscriptions: ["mem://items/1", "mem://items/1"], promptsListChanged: false, unknownThing: true });
    const tag = { _meta: { "io.modelcontextprotocol/subscriptionId": "L1" } };
    expect(h.notifications).toEqual([
      { jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { ...tag, notifications: { toolsListChanged: true, resourceSubscriptions: ["mem://items/1"] } } },
    ]);
    server.resourceUpdated("mem://items/1");
    server.resourceUpdated("mem://items/2");
    server.listChanged("prompts");
    server.listChanged("tools");
    await new Harness({ server }).call("touch", { uri: "mem://items/1" }); // another client's handler
    expect(h.notifications.slice(1)).toEqual([
      { jsonrpc: "2.0", method: "notifications/resources/updated", params: { ...tag, uri: "mem://items/1" } },
      { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: tag },
      { jsonrpc: "2.0", method: "notifications/resources/updated", params: { ...tag, uri: "mem://items/1" } },
    ]);
    // 2025 sessions hear list changes on their own, never the listen stream's traffic
    expect(legacy.notifications.map((n) => n.method)).toEqual(["notifications/prompts/list_changed", "notifications/tools/list_changed"]);
    expect(server.subscriptionStats.listeners).toBe(1);

    // cancelled: no response, no more notifications
    await h.conn.handle({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "L1" } });
    expect(await reply).toBeUndefined();
    server.listChanged("tools");
    expect(h.notifications).toHaveLength(4);
    expect(server.subscriptionStats.listeners).toBe(0);
  });

  it("ends open streams gracefully when the connection closes", async () => {
    const server = createServer(registry);
    const h = new Harness({ server });
    const reply = listen(h, 7, { resourcesListChanged: true });
    expect(h.conn.pending).toBe(0); // a listen stream does not keep the connection busy
    await h.conn.close();
    const response = JSON.parse((await reply) as string) as Message;
    assertServerMessage(response, MODERN, { method: "subscriptions/listen" });
    expect(response).toEqual({
      jsonrpc: "2.0",
      id: 7,
      result: { resultType: "complete", _meta: { "io.modelcontextprotocol/subscriptionId": 7, ...SERVER_INFO } },
    });
    expect(server.subscriptionStats.listeners).toBe(0);
  });

  it("refuses a request with the id of an open listen, and the listen stays open", async () => {
    const server = createServer(registry);
    const h = new Harness({ server });
    const reply = listen(h, "L", { toolsListChanged: true });
    const call = await h.raw({ jsonrpc: "2.0", id: "L", method: "tools/call", params: { _meta: ENVELOPE, name: "touch", arguments: { uri: "mem://1" } } }, "tools/call", MODERN);
    expect(call).toMatchObject({ id: "L", error: { code: -32600, message: expect.stringMatching(/already in use/) } });
    const again = await h.raw({ jsonrpc: "2.0", id: "L", method: "subscriptions/listen", params: { _meta: ENVELOPE, notifications: { toolsListChanged: true } } }, "subscriptions/listen", MODERN);
    expect(again).toMatchObject({ id: "L", error: { code: -32600 } });
    server.listChanged("tools");
    expect(h.notifications.at(-1)).toMatchObject({ method: "notifications/tools/list_changed" });
    await h.conn.handle({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "L" } });
    expect(await reply).toBeUndefined();
  });

  it("honors only what the server has, and checks the filter", async () => {
    const h = new Harness({ registry: promptsOnly });
    void listen(h, "L", { toolsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ["mem://1"], promptsListChanged: true });
    expect((h.notifications[0]!.params as Message).notifications).toEqual({ promptsListChanged: true });
    expect((await h.error("subscriptions/listen", {})).code).toBe(-32602);
    expect((await h.error("subscriptions/listen", { notifications: { resourceSubscriptions: "mem://1" } })).code).toBe(-32602);
    const bounded = new Harness({ registry, maxSubscriptions: 1 });
    expect((await bounded.error("subscriptions/listen", { notifications: { resourceSubscriptions: ["mem://1", "mem://2"] } })).message).toMatch(/at most 1/);
  });
});

describe("content helpers", () => {
  it("build content blocks with annotations", () => {
    expect(text("hi")).toEqual({ type: "text", text: "hi" });
    expect(text("hi", { audience: ["user", "assistant"], priority: 0, lastModified: "2026-01-01T00:00:00Z" })).toEqual({
      type: "text",
      text: "hi",
      annotations: { audience: ["user", "assistant"], priority: 0, lastModified: "2026-01-01T00:00:00Z" },
    });
    expect(image("AAAA", "image/gif")).toEqual({ type: "image", data: "AAAA", mimeType: "image/gif" });
    expect(audio(Uint8Array.from([1, 2, 3]), "audio/mpeg")).toEqual({ type: "audio", data: "AQID", mimeType: "audio/mpeg" });
    expect(resourceLink({ uri: "mem://x", name: "x", size: 3 }, { priority: 0.5 })).toEqual({ type: "resource_link", uri: "mem://x", name: "x", size: 3, annotations: { priority: 0.5 } });
    expect(embedded("mem://t", "text")).toEqual({ type: "resource", resource: { uri: "mem://t", text: "text" } });
    expect(embedded("mem://b", Uint8Array.from([255]), { mimeType: "application/octet-stream", _meta: { k: 1 } })).toEqual({
      type: "resource",
      resource: { uri: "mem://b", mimeType: "application/octet-stream", blob: "/w==" },
      _meta: { k: 1 },
    });
    expect(() => text("x", { priority: 2 })).toThrow(RangeError);
  });

  it("encodes base64 without Buffer too (Workers, Deno)", () => {
    const bytes = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 7) % 256);
    const expected = Buffer.from(bytes).toString("base64");
    const saved = globalThis.Buffer;
    try {
      (globalThis as { Buffer?: unknown }).Buffer = undefined;
      expect(toBase64(bytes)).toBe(expected);
      expect(toBase64(bytes.subarray(1, 4))).toBe(saved.from(bytes.subarray(1, 4)).toString("base64"));
    } finally {
      globalThis.Buffer = saved;
    }
  });
});
