/**
 * The stdio adapter in-process, on PassThrough streams: framing, parse errors, concurrency, backpressure
 * and shutdown. Every line written is checked against the spec schema.
 */
import { once } from "node:events";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createServer, serveStdio, type StdioOptions, type StdioSession } from "../../packages/runtime/src/index.js";
import { registry } from "./helpers/fixtures.js";
import { ENVELOPE, nextTurn, until } from "../helpers/wait.js";
import { assertServerMessage, type SpecVersion } from "./helpers/spec.js";

type Message = Record<string, unknown>;

class Pipe {
  readonly input = new PassThrough();
  readonly output: PassThrough;
  readonly session: StdioSession;
  private buffered = "";
  private readonly lines: Message[] = [];

  constructor(options: Omit<StdioOptions, "input" | "output"> & { outputHighWaterMark?: number; autoRead?: boolean } = {}) {
    const { outputHighWaterMark, autoRead = true, ...stdio } = options;
    this.output = new PassThrough(outputHighWaterMark === undefined ? {} : { highWaterMark: outputHighWaterMark });
    this.session = serveStdio(createServer(registry, { onError: () => {} }), { ...stdio, input: this.input, output: this.output });
    if (autoRead) this.read();
  }

  /** Starts consuming output (a slow reader calls this late). */
  read(): void {
    this.output.setEncoding("utf8");
    this.output.on("data", (chunk: string) => {
      const parts = (this.buffered + chunk).split("\n");
      this.buffered = parts.pop() ?? "";
      for (const part of parts) this.lines.push(JSON.parse(part) as Message);
    });
  }

  write(text: string): void {
    this.input.write(text);
  }

  send(message: unknown): void {
    this.write(`${JSON.stringify(message)}\n`);
  }

  /** Waits for `count` lines in total and checks them all against `version`. */
  async take(count: number, version: SpecVersion = "2026-07-28", timeoutMs = 3000): Promise<Message[]> {
    await until(() => this.lines.length >= count, { timeoutMs, what: `${count} lines (got ${this.lines.length}: ${JSON.stringify(this.lines).slice(0, 2000)})` });
    const taken = this.lines.splice(0, count);
    for (const line of taken) assertServerMessage(line, version);
    return taken;
  }

  get received(): number {
    return this.lines.length;
  }
}

const open: Pipe[] = [];
function pipe(options?: ConstructorParameters<typeof Pipe>[0]): Pipe {
  const p = new Pipe(options);
  open.push(p);
  return p;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((p) => p.session.close()));
});

const call = (id: number | string, name: string, args: Message = {}, meta: Message = {}): Message => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args, _meta: { ...ENVELOPE, ...meta } },
});

describe("stdio framing", () => {
  it("answers malformed JSON with -32700 and keeps serving", async () => {
    const p = pipe();
    p.write("{not json\n");
    p.send(call(1, "echo", { text: "after" }));
    const [parseError, answer] = await p.take(2);
    expect(parseError).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } });
    expect(parseError).not.toHaveProperty("id");
    expect(answer).toMatchObject({ id: 1, result: { content: [{ text: "after" }] } });
  });

  it("refuses an invalid envelope each time it is sent, and checks a valid one that repeats", async () => {
    const p = pipe();
    const { "io.modelcontextprotocol/clientCapabilities": _capabilities, ...invalid } = ENVELOPE;
    const bad = { jsonrpc: "2.0", method: "tools/call", params: { name: "echo", arguments: { text: "x" }, _meta: invalid } };
    for (const id of [1, 2]) p.send({ ...bad, id });
    for (const id of [3, 4]) p.send(call(id, "echo", { text: String(id) }));
    const replies = await p.take(4);
    expect(replies.slice(0, 2).map((r) => (r.error as { code: number; message: string }).message)).toEqual(
      [1, 2].map(() => 'Invalid params: missing _meta["io.modelcontextprotocol/clientCapabilities"]'),
    );
    expect(replies.slice(2)).toMatchObject([{ id: 3, result: { content: [{ text: "3" }] } }, { id: 4, result: { content: [{ text: "4" }] } }]);
  });

  it("reassembles split messages, accepts CRLF and several messages per chunk, skips blank lines", async () => {
    const p = pipe();
    const text = JSON.stringify(call(1, "echo", { text: "ünïcödé" }));
    const bytes = Buffer.from(`${text}\r\n\n   \n${JSON.stringify(call(2, "echo", { text: "b" }))}\n`);
    // split inside a multi-byte character too
    const cut = bytes.indexOf(Buffer.from("ü")) + 1;
    p.input.write(bytes.subarray(0, cut));
    await nextTurn();
    p.input.write(bytes.subarray(cut, cut + 7));
    p.input.write(bytes.subarray(cut + 7));
    const lines = await p.take(2);
    expect(lines.map((l) => (l.result as { content: { text: string }[] }).content[0]?.text)).toEqual(["ünïcödé", "b"]);
  });

  it("answers an over-long line with -32600 and keeps serving", async () => {
    const p = pipe({ maxLineLength: 1000 });
    p.write(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"${"x".repeat(3000)}`);
    await nextTurn();
    p.write(`"}}}\n`);
    p.send(call(2, "echo", { text: "ok" }));
    const [tooLong, answer] = await p.take(2);
    expect(tooLong).toMatchObject({ error: { code: -32600 } });
    expect(answer).toMatchObject({ id: 2 });
    expect(p.received).toBe(0);
  });

  it("processes requests concurrently and answers them by id", async () => {
    const p = pipe();
    p.send(call("slow", "slow", { steps: 1, delayMs: 40 }));
    p.send(call("fast", "echo", { text: "fast" }));
    const lines = await p.take(2);
    expect(lines.map((l) => l.id)).toEqual(["fast", "slow"]);
  });

  it("answers one input chunk's requests in one write, without holding them back for a slower one", async () => {
    const p = pipe();
    const writes: string[] = [];
    const write = p.output.write.bind(p.output);
    p.output.write = ((chunk: string, ...rest: never[]) => (writes.push(String(chunk)), write(chunk, ...rest))) as typeof p.output.write;
    p.write([1, 2, 3, 4, 5].map((i) => `${JSON.stringify(call(i, "echo", { text: `t${i}` }))}\n`).join(""));
    expect((await p.take(5)).map((l) => l.id)).toEqual([1, 2, 3, 4, 5]);
    expect(writes).toHaveLength(1);
    p.write(`${JSON.stringify(call("slow", "slow", { steps: 1, delayMs: 40 }))}\n${JSON.stringify(call("fast", "echo", { text: "fast" }))}\n`);
    expect((await p.take(1))[0]?.id).toBe("fast");
    expect((await p.take(1))[0]?.id).toBe("slow");
    expect(writes).toHaveLength(3);
  });

  it("writes request-scoped notifications before the response", async () => {
    const p = pipe();
    p.send(call(1, "slow", { steps: 2, delayMs: 1 }, { progressToken: "t" }));
    const lines = await p.take(3);
    expect(lines.map((l) => l.method ?? l.id)).toEqual(["notifications/progress", "notifications/progress", 1]);
  });
});

describe("stdio backpressure", () => {
  // A real pipe delivers input in chunks of up to 64 KiB per turn of the event loop: 1 or 30 requests here.
  it.each([1, 30])("stops reading while a slow reader leaves the output congested (%i requests per turn)", async (perTurn) => {
    const p = pipe({ outputHighWaterMark: 1024, autoRead: false });
    const text = "y".repeat(2000);
    const total = 600;
    let written = 0;
    const writer = (async () => {
      for (let id = 1; id <= total; id++) {
        if (!p.input.write(`${JSON.stringify(call(id, "echo", { text }))}\n`)) await once(p.input, "drain");
        if (id % perTurn === 0) await new Promise((resolve) => setImmediate(resolve));
        written = id;
      }
    })();
    await until(() => p.input.isPaused(), { timeoutMs: 5000, what: "the server to stop reading" });
    // Nobody reads the output: the server holds the client back instead of buffering 1.2 MB of answers.
    expect(p.input.isPaused()).toBe(true);
    expect(written).toBeLessThan(100);
    expect(p.output.writableLength + p.output.readableLength).toBeLessThan(50 * text.length);
    p.read();
    await writer;
    const lines = await p.take(total, "2026-07-28", 10_000);
    expect(lines.map((l) => l.id)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
  });

  it("keeps reading while handlers hang, so cancellations get through", async () => {
    const p = pipe();
    for (let id = 1; id <= 300; id++) p.send(call(id, "stubborn", { ms: 60_000 }));
    for (let id = 1; id <= 300; id++) p.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });
    p.send(call("last", "echo", { text: "not wedged" }));
    const [answer] = await p.take(1);
    expect(answer).toMatchObject({ id: "last", result: { content: [{ text: "not wedged" }] } });
  });
});

describe("stdio shutdown", () => {
  it("at end of input lets requests in flight finish within the grace, then closes", async () => {
    const p = pipe({ graceMs: 2000 });
    p.send(call(1, "slow", { steps: 2, delayMs: 30 }));
    p.input.end();
    await p.session.closed;
    const [answer] = await p.take(1);
    expect(answer).toMatchObject({ id: 1, result: { content: [{ text: "finished 2 steps" }] } });
  });

  it("at end of input cancels what does not finish within the grace", async () => {
    const p = pipe({ graceMs: 100 });
    p.send(call(1, "stubborn", { ms: 5_000 }));
    // Lines are dispatched in order: once the echo is answered, the stubborn call is in flight.
    p.send(call(2, "echo", { text: "after" }));
    expect(await p.take(1)).toMatchObject([{ id: 2 }]);
    const started = Date.now();
    p.input.end();
    await p.session.closed;
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(p.received).toBe(0);
  });

  it("close() cancels requests in flight at once and waits a bounded grace", async () => {
    const p = pipe({ graceMs: 100 });
    p.send(call(1, "slow", { steps: 1000, delayMs: 5 }));
    p.send(call(2, "stubborn", { ms: 5_000 }));
    p.send(call(3, "echo", { text: "after" }));
    expect(await p.take(1)).toMatchObject([{ id: 3 }]);
    const started = Date.now();
    await p.session.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(p.received).toBe(0);
  });
});
