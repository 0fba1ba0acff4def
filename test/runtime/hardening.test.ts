/**
 * Hostile clients against the core: values nested to any depth, floods of validation errors, ids beyond
 * 2^53, names that are Object.prototype's keys, oversized URIs, and answers to another client's
 * server→client request. Each costs at most its own request an error; the server keeps serving everyone.
 */
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createServer, serveStdio, type Server, type StdioSession } from "../../packages/runtime/src/index.js";
import { PROTO_NAMES, protoRegistry, registry, TEMPLATE } from "./helpers/fixtures.js";
import { ENVELOPE, until } from "../helpers/wait.js";
import { Harness, type Message } from "./helpers/core.js";
import { initialize, messagesOf, modern, post, start, stopAll } from "./http/helpers.js";

/** `[[[…"x"…]]]`, `depth` arrays deep: stringifying or walking it recursively overflows the stack. */
function nested(depth: number, inner = '"2026-07-28"'): string {
  return `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`;
}

/** A stdio session on PassThrough streams that keeps every output line as text (ids are compared as written). */
class RawPipe {
  readonly input = new PassThrough();
  readonly output = new PassThrough();
  readonly session: StdioSession;
  readonly lines: string[] = [];
  private buffered = "";

  constructor(server: Server = createServer(registry, { onError: () => {} })) {
    this.session = serveStdio(server, { input: this.input, output: this.output, graceMs: 50 });
    this.output.setEncoding("utf8");
    this.output.on("data", (chunk: string) => {
      const parts = (this.buffered + chunk).split("\n");
      this.buffered = parts.pop() ?? "";
      this.lines.push(...parts);
    });
  }

  write(line: string): void {
    this.input.write(`${line}\n`);
  }

  /** Waits (bounded) for the line answering `id` (its JSON text, e.g. `1` or `"a"`) and returns it. */
  async answer(id: string, timeoutMs = 5000): Promise<string> {
    const find = (): string | undefined => this.lines.find((line) => line.startsWith(`{"jsonrpc":"2.0","id":${id},`));
    await until(() => find() !== undefined, { timeoutMs, what: `the answer to id ${id}` });
    return find() as string;
  }
}

const pipes: RawPipe[] = [];
function pipe(server?: Server): RawPipe {
  const made = new RawPipe(server);
  pipes.push(made);
  return made;
}

afterEach(async () => {
  await Promise.all(pipes.splice(0).map((made) => made.session.close()));
  await stopAll();
});

const META = JSON.stringify(ENVELOPE).slice(1, -1);

describe("values nested any depth deep", () => {
  it("a deeply nested _meta protocol version before initialize costs one error, and the next request is answered (stdio)", async () => {
    const p = pipe();
    const line = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":${nested(10_000)}}}}`;
    expect(line.length).toBeGreaterThan(10_000);
    p.write(line);
    p.write('{"jsonrpc":"2.0","id":2,"method":"ping"}');
    const error = JSON.parse(await p.answer("1")) as Message;
    expect(error.error).toMatchObject({ code: -32022, message: "Unsupported protocol version: an array" });
    expect(JSON.parse(await p.answer("2"))).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
  });

  it("a deeply nested completion reference type is described by its type (-32602)", async () => {
    const p = pipe(createServer(protoRegistry, { onError: () => {} }));
    p.write(`{"jsonrpc":"2.0","id":1,"method":"completion/complete","params":{"ref":{"type":${nested(10_000, "1")}},"argument":{"name":"a","value":""},"_meta":{${META}}}}`);
    p.write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"valueOf","arguments":{"valueOf":"alive"},"_meta":{${META}}}}`);
    const error = JSON.parse(await p.answer("1")) as Message;
    expect(error.error).toMatchObject({ code: -32602, message: expect.stringContaining("Unknown reference type an array") });
    expect(await p.answer("2")).toContain("alive");
  });

  it("deeply nested tool names, cursors, progress tokens, cancellations and ids never take the connection down", async () => {
    const p = pipe();
    const deep = nested(10_000, "0");
    const lines = [
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${deep},"_meta":{${META}}}}`,
      `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":${deep},"_meta":{${META}}}}`,
      `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":${deep}},"_meta":{${META},"progressToken":${deep}}}}`,
      `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${deep},"reason":${deep}}}`,
      `{"jsonrpc":"2.0","id":${deep},"method":"ping"}`,
      `{"jsonrpc":"2.0","id":4,"method":${deep}}`,
      `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{${META.replace('"2026-07-28"', nested(10_000))}}}}`,
      `{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":${deep},"_meta":{${META}}}}`,
    ];
    for (const line of lines) p.write(line);
    p.write('{"jsonrpc":"2.0","id":"last","method":"ping"}');
    for (const id of ["1", "2", "4", "5"]) expect(JSON.parse(await p.answer(id))).toHaveProperty("error");
    expect(await p.answer("3")).toContain("must be string");
    expect(JSON.parse(await p.answer('"last"'))).toEqual({ jsonrpc: "2.0", id: "last", result: {} });
  });

  it("refuses arguments nested deeper than a recursive schema's validator can follow, as invalid arguments", async () => {
    // A validator that recurses with the value, as ajv's does for a recursive schema: deep enough, V8's stack ends.
    const depth = (value: unknown): number => (Array.isArray(value) ? 1 + Math.max(0, ...value.map(depth)) : 0);
    const tools = registry.tools.map((tool) =>
      tool.name !== "echo"
        ? tool
        : { ...tool, validators: async () => ({ ...(await tool.validators()), input: (args: unknown) => depth((args as { text?: unknown }).text) < 1e9 }) },
    );
    const p = pipe(createServer({ ...registry, tools }, { onError: () => {} }));
    p.write(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":${nested(50_000, "0")}},"_meta":{${META}}}}`);
    p.write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":[[0]]},"_meta":{${META}}}}`);
    expect(JSON.parse(await p.answer("1")).result).toMatchObject({ isError: true, content: [{ text: "Invalid arguments: /: nested too deeply to be checked" }] });
    expect(JSON.parse(await p.answer("2")).result).toHaveProperty("content");
  });

  it("catches whatever a message does to the runtime at the message boundary: -32603 for that request only", async () => {
    const h = new Harness();
    const hostile = {
      jsonrpc: "2.0",
      id: 7,
      get method(): string {
        throw new RangeError("Maximum call stack size exceeded");
      },
    };
    const original = console.error;
    console.error = () => {};
    try {
      expect(await h.conn.handle(hostile)).toBe('{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"Internal error"}}');
      expect(await h.conn.handle({ ...Object.getOwnPropertyDescriptors({}), jsonrpc: "2.0", get method(): string { throw new Error("boom"); } })).toBeUndefined();
    } finally {
      console.error = original;
    }
    expect(await h.call("echo", { text: "still here" })).toMatchObject({ content: [{ text: "still here" }] });
  });

  it("answers a deeply nested protocol version over HTTP with 400, not 500", async () => {
    const handle = await start();
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{${META.replace('"2026-07-28"', nested(10_000))}}}}`;
    const response = await post(handle.url, body, { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" });
    expect(response.status).toBe(400);
    expect(((await response.json()) as Message).error).toMatchObject({ message: expect.stringContaining("an array") });
    const ref = `{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":{"type":${nested(10_000, "1")}},"argument":{"name":"a","value":""},"_meta":{${META}}}}`;
    const completion = await post(handle.url, ref, { "mcp-protocol-version": "2026-07-28", "mcp-method": "completion/complete" });
    expect(completion.status).toBeLessThan(500);
    const alive = await modern(handle.url, 3, "tools/call", { name: "echo", arguments: { text: "alive" } });
    expect((await messagesOf(alive, "2026-07-28", "tools/call"))[0]).toMatchObject({ result: { content: [{ text: "alive" }] } });
  });
});

describe("floods of validation errors", () => {
  it("reports the first few problems and counts the rest", async () => {
    const h = new Harness();
    const args: Record<string, unknown> = { a: 1, b: 2 };
    for (let i = 0; i < 12_000; i++) args[`k${i}`] = i;
    const result = await h.result("tools/call", { name: "add", arguments: args });
    const text = Harness.text(result);
    expect(text.split("; ")).toHaveLength(9);
    expect(text).toMatch(/^Invalid arguments: \/k0: unknown property \(not allowed\); .*; and 11992 more$/);
  });

  it("keeps answering others while a worst-case argument is processed (stdio, pipelined)", async () => {
    const p = pipe();
    const keys = Array.from({ length: 40_000 }, (_, i) => `"k${i}":${i}`).join(",");
    const sent = Date.now();
    p.write(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2,${keys}},"_meta":{${META}}}}`);
    p.write('{"jsonrpc":"2.0","id":2,"method":"ping"}');
    await p.answer("2");
    // Quadratic de-duplication took about a minute for 40,000 errors; linear work is milliseconds.
    expect(Date.now() - sent).toBeLessThan(1500);
    expect(await p.answer("1")).toContain("and 39992 more");
  });
});

describe("names that are Object.prototype's keys", () => {
  it("calls tools with those names and required properties of those names", async () => {
    const p = pipe(createServer(protoRegistry, { onError: () => {} }));
    PROTO_NAMES.forEach((name, i) => {
      p.write(`{"jsonrpc":"2.0","id":${i + 1},"method":"tools/call","params":{"name":"${name}","arguments":{"${name}":"v"},"_meta":{${META}}}}`);
    });
    for (const [i, name] of PROTO_NAMES.entries()) {
      const answer = JSON.parse(await p.answer(String(i + 1))) as { result: { content: { text: string }[]; isError?: boolean } };
      expect(answer.result.isError).toBeUndefined();
      expect(answer.result.content[0]?.text).toBe(`got ${JSON.stringify([[name, "v"]])}`);
    }
    p.write(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"isPrototypeOf","_meta":{${META}}}}`);
    expect(JSON.parse(await p.answer("9"))).toMatchObject({ error: { code: -32602, message: "Unknown tool: isPrototypeOf" } });
  });

  /** The fixture's `valueOf` tool over stdio: `call(id, member, json)` sends `{"valueOf":"v", member: json}`. */
  function valueOfTool() {
    const p = pipe(createServer(protoRegistry, { onError: () => {} }));
    const call = (id: number, member: string, json: string): void =>
      p.write(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"valueOf","arguments":{"valueOf":"v","${member}":${json}},"_meta":{${META}}}}`);
    /** The text of the result answering `id`. */
    const text = async (id: number): Promise<string> => (JSON.parse(await p.answer(String(id))) as { result: { content: { text: string }[] } }).result.content[0]?.text ?? "";
    return { p, call, text };
  }

  it("tells uniqueItems objects apart by their members, whatever their keys, in linear time", async () => {
    const { p, call: send, text } = valueOfTool();
    const call = (id: number, pairs: string): void => send(id, "pairs", pairs);
    // Deep equality that asks the items for valueOf()/toString() threw on these: a tool's internal error.
    call(1, '[{"valueOf":1},{"toString":"a"},{"valueOf":1}]');
    expect(await text(1)).toBe("Invalid arguments: /pairs: must NOT have duplicate items (items ## 0 and 2 are identical)");
    call(2, '[{"toString":"a"},{"toString":"b"},{"valueOf":[1]},{"valueOf":[2]}]');
    expect(await text(2)).toMatch(/^got /);
    // Members decide, not a "constructor" member's identity nor the order of keys.
    call(3, '[{"constructor":{"a":1,"b":2}},{"__proto__":{"a":1}},{"constructor":{"b":2,"a":1}}]');
    expect(await text(3)).toContain("items ## 0 and 2 are identical");
    call(4, '[{"__proto__":{"a":1}},{"__proto__":{"a":2}},{"__proto__":{"a":1},"b":null}]');
    expect(await text(4)).toMatch(/^got /);
    // 100,000 objects: every pair compared would be 5·10^9 comparisons; the server answers a ping meanwhile.
    const many = Array.from({ length: 100_000 }, (_, k) => `{"valueOf":${k},"toString":"${k % 7}"}`);
    call(5, `[${many.join(",")},{"toString":"3","valueOf":3}]`);
    p.write('{"jsonrpc":"2.0","id":6,"method":"ping"}');
    await p.answer("6");
    expect(await text(5)).toContain("items ## 3 and 100000 are identical");
  });

  it("compares enum objects by their members, whatever their keys", async () => {
    const { call: send, text } = valueOfTool();
    const call = (id: number, shape: string): void => send(id, "shape", shape);
    // Deep equality that asks the input for valueOf()/toString() threw on these: a tool's internal error.
    call(1, '{"valueOf":0}');
    expect(await text(1)).toMatch(/^got /);
    call(2, '{"toString":"round","kind":"circle"}');
    expect(await text(2)).toMatch(/^got /);
    call(3, '{"valueOf":1}');
    expect(await text(3)).toMatch(/^Invalid arguments: \/shape: must be one of /);
    call(4, '{"toString":"square","kind":"circle"}');
    expect(await text(4)).toMatch(/^Invalid arguments: \/shape: must be one of /);
  });

  it("gets prompts with those names and arguments", async () => {
    const h = new Harness({ registry: protoRegistry });
    const args = Object.fromEntries(PROTO_NAMES.map((name) => [name, `${name}-value`]));
    for (const name of ["__proto__", "constructor"]) {
      const result = await h.result("prompts/get", { name, arguments: JSON.parse(JSON.stringify(args)) as Record<string, unknown> });
      expect(JSON.stringify(result.messages)).toContain("__proto__-value");
    }
    for (const name of ["toString", "valueOf", "hasOwnProperty"]) expect((await h.error("prompts/get", { name })).message).toBe(`Unknown prompt: ${name}`);
  });

  it("completes prompt arguments and template variables with those names", async () => {
    const h = new Harness({ registry: protoRegistry });
    const complete = async (ref: Record<string, unknown>, name: string, value = ""): Promise<unknown> =>
      ((await h.result("completion/complete", { ref, argument: { name, value } })).completion as { values: string[] }).values;
    const prompt = { type: "ref/prompt", name: "p" };
    expect(await complete(prompt, "toString", "a")).toEqual(["a!"]);
    expect(await complete(prompt, "valueOf", "Y")).toEqual(["yankee"]);
    expect(await complete(prompt, "constructor")).toEqual(["c1"]);
    expect(await complete(prompt, "__proto__")).toEqual([]);
    expect(await complete(prompt, "hasOwnProperty")).toEqual([]);
    const template = { type: "ref/resource", uri: TEMPLATE };
    expect(await complete(template, "toString", "b")).toEqual(["b!"]);
    expect(await complete(template, "valueOf")).toEqual(["alpha", "beta"]);
    expect(await complete(template, "constructor")).toEqual([]);
    expect((await h.error("completion/complete", { ref: template, argument: { name: "__proto__", value: "" } })).code).toBe(-32602);
    for (const name of ["toString", "__proto__", "constructor"]) {
      expect((await h.error("completion/complete", { ref: { type: "ref/prompt", name: "toString" }, argument: { name, value: "" } })).code).toBe(-32602);
      expect((await h.error("completion/complete", { ref: { type: "ref/resource", uri: name }, argument: { name, value: "" } })).code).toBe(-32602);
    }
    // context.arguments named __proto__ arrive as arguments, not as a prototype
    const withContext = await h.result("completion/complete", { ref: prompt, argument: { name: "toString", value: "c" }, context: { arguments: JSON.parse('{"__proto__":"x"}') as Record<string, unknown> } });
    expect(withContext.completion).toMatchObject({ values: ["c!"] });
    expect(h.errors).toEqual([]);
  });
});

describe("bounded sizes", () => {
  const long = `mem://${"x".repeat(10_000)}`;

  it("refuses oversized URIs in resources/subscribe, unsubscribe, read and listen filters with -32602", async () => {
    const server = createServer(protoRegistry, { onError: () => {} });
    const h = new Harness({ server });
    await h.initialize();
    for (const method of ["resources/subscribe", "resources/unsubscribe", "resources/read"]) {
      expect(await h.error(method, { uri: long })).toMatchObject({ code: -32602, message: 'Invalid params: "uri" is longer than 8192 characters' });
    }
    expect(await h.result("resources/subscribe", { uri: "mem://fine" })).toEqual({});
    expect(server.subscriptionStats).toMatchObject({ uris: 1, subscriptions: 1 });
    const modernClient = new Harness({ server });
    const error = await modernClient.error("subscriptions/listen", { notifications: { resourceSubscriptions: ["mem://fine", long] } });
    expect(error).toMatchObject({ code: -32602, message: expect.stringContaining("longer than 8192") });
    expect(server.subscriptionStats.listeners).toBe(0);
  });

  it("quotes at most a short piece of an unknown name or reference in errors", async () => {
    const h = new Harness({ registry: protoRegistry });
    const name = "n".repeat(100_000);
    for (const error of [
      await h.error("tools/call", { name }),
      await h.error("prompts/get", { name }),
      await h.error("completion/complete", { ref: { type: "ref/prompt", name }, argument: { name: "a", value: "" } }),
      await h.error("completion/complete", { ref: { type: "ref/prompt", name: "p" }, argument: { name, value: "" } }),
      await h.error("completion/complete", { ref: { type: "ref/resource", uri: long }, argument: { name: "a", value: "" } }),
      await h.error("unknown/method".padEnd(100_000, "x"), {}),
    ]) {
      expect(error.code === -32602 || error.code === -32601).toBe(true);
      expect(error.message.length).toBeLessThan(400);
    }
  });
});

describe("answers to server→client requests", () => {
  const CAPS = { elicitation: {} };

  async function asked(h: Harness, id: number): Promise<{ call: Promise<unknown>; askId: string; settled: () => boolean }> {
    let settled = false;
    const call = h.raw({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "ask", arguments: { what: "elicit" } } }, "tools/call").then((reply) => {
      settled = true;
      return reply;
    });
    const find = (): Message | undefined => h.notifications.find((message) => message.method === "elicitation/create");
    await until(() => find() !== undefined, { timeoutMs: 5000, what: "elicitation/create" });
    return { call, askId: find()?.id as string, settled: () => settled };
  }

  async function handshake(h: Harness): Promise<void> {
    h.version = "2025-11-25";
    await h.raw({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: CAPS, clientInfo: { name: "t", version: "1" } } }, "initialize");
    await h.raw({ jsonrpc: "2.0", method: "notifications/initialized" });
  }

  it("counts only the answer from the connection that was asked", async () => {
    const server = createServer(registry, { onError: () => {} });
    const alice = new Harness({ server });
    const mallory = new Harness({ server });
    await handshake(alice);
    await handshake(mallory);
    const { call, askId, settled } = await asked(alice, 1);
    expect(await mallory.raw({ jsonrpc: "2.0", id: askId, result: { action: "accept", content: { name: "Mallory" } } })).toBeUndefined();
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled()).toBe(false);
    expect(server.awaitingClient).toBe(1);
    await alice.raw({ jsonrpc: "2.0", id: askId, result: { action: "accept", content: { name: "Alice" } } });
    expect(await call).toMatchObject({ result: { content: [{ text: "Hello, Alice!" }] } });
  });

  it("over stateless connections, counts only the answer of the same authenticated subject", async () => {
    const server = createServer(registry, { onError: () => {} });
    const sent: Message[] = [];
    const statelessAs = (subject: string) => {
      const sink = { send: (line: string) => void sent.push(JSON.parse(line) as Message), auth: { subject, scopes: [] }, streaming: true };
      return server.connect(sink, { ephemeral: true, session: { protocolVersion: "2025-11-25", clientCapabilities: CAPS } });
    };
    let settled = false;
    const call = Promise.resolve(statelessAs("alice").handle({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "ask", arguments: { what: "elicit" } } })).then((reply) => {
      settled = true;
      return reply;
    });
    await until(() => sent.some((message) => message.method === "elicitation/create"), { timeoutMs: 5000, what: "elicitation/create" });
    const askId = sent.find((message) => message.method === "elicitation/create")?.id;
    statelessAs("mallory").handle({ jsonrpc: "2.0", id: askId, result: { action: "accept", content: { name: "Mallory" } } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    statelessAs("alice").handle({ jsonrpc: "2.0", id: askId, result: { action: "accept", content: { name: "Alice" } } });
    expect(await call).toContain("Hello, Alice!");
  });

  it("over HTTP, another session cannot answer a session's elicitation", async () => {
    const handle = await start();
    const alice = await initialize(handle.url, "2025-11-25", CAPS);
    const mallory = await initialize(handle.url, "2025-11-25", CAPS);
    const headers = (session: string) => ({ "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" });
    const response = await post(handle.url, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "ask", arguments: { what: "elicit" } } }, headers(alice));
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    const deadline = Date.now() + 5000;
    while (!text.includes("elicitation/create")) {
      if (Date.now() > deadline) throw new Error(`no elicitation/create: ${text}`);
      const chunk = await reader.read();
      if (chunk.done) break;
      text += chunk.value;
    }
    const askId = /"id":"(mcpgen-[^"]+)"/.exec(text)?.[1];
    expect(askId).toBeDefined();
    const answer = (name: string) => ({ jsonrpc: "2.0", id: askId, result: { action: "accept", content: { name } } });
    expect((await post(handle.url, answer("Mallory"), headers(mallory))).status).toBe(202);
    expect((await post(handle.url, answer("Alice"), headers(alice))).status).toBe(202);
    while (!text.includes("Hello, ")) {
      if (Date.now() > deadline) throw new Error(`no result: ${text}`);
      const chunk = await reader.read();
      if (chunk.done) break;
      text += chunk.value;
    }
    expect(text).toContain("Hello, Alice!");
    expect(text).not.toContain("Mallory");
  });
});

describe("numeric ids within 2^53", () => {
  it("come back as the same JSON numbers, in results and in errors", async () => {
    const p = pipe();
    const IDS = ["0", "-7", "42", "1e3", "9007199254740991", "-9007199254740991"];
    for (const id of IDS) {
      p.write(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"n"},"_meta":{${META}}}}`);
      const expected = JSON.stringify(JSON.parse(id));
      const answer = await p.answer(expected);
      expect(answer.startsWith(`{"jsonrpc":"2.0","id":${expected},"result":{`)).toBe(true);
      expect((JSON.parse(answer) as { id: unknown }).id).toBe(JSON.parse(id));
    }
    p.write(`{"jsonrpc":"2.0","id":-3,"method":"no/such/method","params":{"_meta":{${META}}}}`);
    expect(await p.answer("-3")).toMatch(/^\{"jsonrpc":"2\.0","id":-3,"error":\{"code":-32601/);
  });
});

describe("ids beyond 2^53", () => {
  const BIG = ["9007199254740993", "9223372036854775807", "-9223372036854775809", "123456789012345678901234567890"];

  it("are echoed with the digits they were sent with (stdio), and both eras answer them", async () => {
    const p = pipe();
    for (const id of BIG) p.write(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
    for (const id of BIG) expect(await p.answer(id)).toBe(`{"jsonrpc":"2.0","id":${id},"result":{}}`);
    p.write(`{"jsonrpc":"2.0","id":9007199254740995,"method":"tools/call","params":{"name":"echo","arguments":{"text":"big"},"_meta":{${META}}}}`);
    expect(await p.answer("9007199254740995")).toContain('"text":"big"');
    p.write(`{"jsonrpc":"2.0","id":9007199254740997,"method":"no/such/method"}`);
    expect(await p.answer("9007199254740997")).toContain('"error":{"code":-32602');
    p.write('{"jsonrpc":"2.0","id":1e20,"method":"ping"}');
    expect(await p.answer("100000000000000000000")).toBe('{"jsonrpc":"2.0","id":100000000000000000000,"result":{}}');
  });

  it("keeps big ids apart, cancels the exact one, and echoes big progress tokens exactly", async () => {
    const p = pipe();
    const call = (id: string, token: string) =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"slow","arguments":{"steps":50,"delayMs":5},"_meta":{${META},"progressToken":${token}}}}`;
    // 2^53 + 1 and 2^53 + 2 are the same double: as numbers they would collide.
    p.write(call("9007199254740993", "9007199254740995"));
    p.write(call("9007199254740994", "9007199254740996"));
    const progressed = (token: string): boolean => p.lines.some((line) => line.includes(`"progressToken":${token},`));
    await until(() => progressed("9007199254740995") && progressed("9007199254740996"), { timeoutMs: 5000, what: "progress on both calls" });
    p.write('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9007199254740993}}');
    expect(await p.answer("9007199254740994", 10_000)).toContain("finished 50 steps");
    expect(p.lines.some((line) => line.startsWith('{"jsonrpc":"2.0","id":9007199254740993,'))).toBe(false);
  });

  it("are echoed exactly over HTTP in both eras", async () => {
    const handle = await start();
    const session = await initialize(handle.url);
    const legacy = await post(handle.url, '{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}', { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25", accept: "application/json" });
    expect(await legacy.text()).toBe('{"jsonrpc":"2.0","id":9223372036854775807,"result":{}}');
    const body = `{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"echo","arguments":{"text":"big"},"_meta":{${META}}}}`;
    const modernResponse = await post(handle.url, body, { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "echo", accept: "application/json" });
    expect(await modernResponse.text()).toMatch(/^\{"jsonrpc":"2\.0","id":9007199254740993,"result":/);
  });
});
