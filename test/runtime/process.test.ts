/**
 * A real server process (the fixture server on the built runtime): command line, stdout hygiene and
 * process lifecycle. Every stdout line is checked against the spec schema.
 */
import { spawnSync } from "node:child_process";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { parseArgs, tuneHeap } from "../../packages/runtime/src/index.js";
import { ENVELOPE } from "../helpers/wait.js";
import { assertRuntimeBuilt, EXAMPLE_SERVER, FIXTURE_SERVER, RawServer } from "./helpers/e2e.js";

const running: RawServer[] = [];
function start(args: string[] = []): RawServer {
  const server = new RawServer(FIXTURE_SERVER, args);
  running.push(server);
  return server;
}

beforeAll(assertRuntimeBuilt);
afterEach(() => {
  for (const server of running.splice(0)) server.kill();
});

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(FIXTURE_SERVER.command, [...FIXTURE_SERVER.args, ...args], { encoding: "utf8", timeout: 10_000, input: "" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("the command line", () => {
  it.each([
    [[], { kind: "serve", options: { transport: "stdio" } }],
    [["--stdio"], { kind: "serve", options: { transport: "stdio" } }],
    [["--page-size", "7"], { kind: "serve", options: { transport: "stdio", pageSize: 7 } }],
    [["--page-size=7", "--stdio"], { kind: "serve", options: { transport: "stdio", pageSize: 7 } }],
    [["--stdio", "-h"], { kind: "help" }],
    [["--page-size"], { kind: "error", message: "--page-size needs a value" }],
    [["--page-size", "0"], { kind: "error", message: '--page-size must be a positive integer, got "0"' }],
    [["--page-size", "1e3"], { kind: "error", message: '--page-size must be a positive integer, got "1e3"' }],
    [["--verbose"], { kind: "error", message: "unknown option --verbose" }],
    [["--stdio=yes"], { kind: "error", message: "--stdio takes no value" }],
    [["serve"], { kind: "error", message: 'unexpected argument "serve"' }],
  ])("parses %j", (argv, expected) => {
    expect(parseArgs(argv)).toEqual(expected);
  });

  it("prints help on stdout and exits 0", () => {
    const { status, stdout, stderr } = run(["--help"]);
    expect(status).toBe(0);
    expect(stdout).toMatch(/^Usage: fixture-server \[options\]/);
    expect(stdout).toContain("--page-size <n>");
    expect(stderr).toBe("");
  });

  it.each([[["--bogus"]], [["--page-size"]], [["--page-size", "zero"]], [["--port", "3000"]]])("rejects %j with exit code 2 and a message on stderr", (args) => {
    const { status, stdout, stderr } = run(args);
    expect(status).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^fixture-server: .+\nRun "fixture-server --help" for the options\.\n$/);
  });

  it("applies --page-size", async () => {
    const server = start(["--page-size", "4"]);
    server.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: ENVELOPE } });
    const page = (await server.next("2026-07-28", "tools/list")).result as { tools: unknown[]; nextCursor?: string };
    expect(page.tools).toHaveLength(4);
    expect(page.nextCursor).toBeTypeOf("string");
  });
});

describe("stdio hygiene", () => {
  it("keeps handler console output and error details on stderr; stdout carries protocol only", async () => {
    const server = start();
    server.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "noisy", _meta: ENVELOPE } });
    server.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "crash", _meta: ENVELOPE } });
    const answers = [await server.next("2026-07-28", "tools/call"), await server.next("2026-07-28", "tools/call")];
    expect(answers.map((a) => a.id).sort()).toEqual([1, 2]);
    server.child.stdin.end();
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.rest()).toEqual([]);
    const stderr = server.stderr.join("");
    expect(stderr).toContain("noise from console.log");
    expect(stderr).toContain("noise from console.info");
    expect(stderr).toContain("noise from console.debug");
    expect(stderr).toContain("hunter2"); // the details stay in the server's log…
    expect(JSON.stringify(answers)).not.toContain("hunter2"); // …and never reach the client
  });

  it("answers malformed JSON with -32700 and keeps serving", async () => {
    const server = start();
    server.send("{oops");
    server.send({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: ENVELOPE } });
    expect((await server.next("2026-07-28")).error).toMatchObject({ code: -32700 });
    expect(await server.next("2026-07-28", "server/discover")).toMatchObject({ id: 1, result: { resultType: "complete" } });
  });
});

describe("process lifecycle", () => {
  it("finishes the requests in flight and exits 0 when stdin ends", async () => {
    const server = start();
    server.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "slow", arguments: { steps: 2, delayMs: 50 }, _meta: ENVELOPE } });
    server.child.stdin.end();
    expect(await server.next("2026-07-28", "tools/call")).toMatchObject({ id: 1, result: { content: [{ text: "finished 2 steps" }] } });
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });

  it("answers a request whose handler module is still loading when stdin ends", async () => {
    // The example's resources runtime and handlers load on the first read: stdin closes before they have.
    const server = new RawServer(EXAMPLE_SERVER, []);
    running.push(server);
    server.send({ jsonrpc: "2.0", id: 1, method: "resources/read", params: { uri: "tasks://task/T-1", _meta: ENVELOPE } });
    server.child.stdin.end();
    expect(await server.next("2026-07-28", "resources/read")).toMatchObject({ id: 1, result: { contents: [{ uri: "tasks://task/T-1" }] } });
    expect(await server.exited).toEqual({ code: 0, signal: null });
  });

  it("exits 0 within the grace when stdin ends while a handler ignores cancellation", async () => {
    const server = start();
    server.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "stubborn", arguments: { ms: 60_000 }, _meta: ENVELOPE } });
    // Lines are dispatched in order: once the echo is answered, the stubborn call is in flight.
    server.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "after" }, _meta: ENVELOPE } });
    expect(await server.next("2026-07-28", "tools/call")).toMatchObject({ id: 2 });
    const started = Date.now();
    server.child.stdin.end();
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(server.rest()).toEqual([]);
  });

  it("on SIGTERM cancels the requests in flight and exits 0 within the grace", async () => {
    const server = start();
    server.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "stubborn", arguments: { ms: 60_000 }, _meta: ENVELOPE } });
    server.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "slow", arguments: { steps: 1000, delayMs: 10 }, _meta: ENVELOPE } });
    server.send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo", arguments: { text: "answered" }, _meta: ENVELOPE } });
    expect(await server.next("2026-07-28", "tools/call")).toMatchObject({ id: 3 });
    const started = Date.now();
    server.child.kill("SIGTERM");
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(server.rest()).toEqual([]);
  });
});

describe("the heap sizing main() sets", () => {
  afterEach(() => vi.useRealTimers());

  it("keeps the young generation small until the heap is large, and again once it is small", () => {
    vi.useFakeTimers({ toFake: ["setInterval"] });
    const MiB = 2 ** 20;
    let used = 10 * MiB;
    const flags: string[] = [];
    tuneHeap({ setFlagsFromString: (flag: string) => flags.push(flag), getHeapStatistics: () => ({ used_heap_size: used }) } as unknown as typeof import("node:v8"));
    expect(flags).toEqual(["--heap-growing-percent=50", "--semi-space-growth-factor=1"]);
    const after = (heap: number): string[] => {
      used = heap * MiB;
      flags.length = 0;
      vi.advanceTimersByTime(1000);
      return [...flags];
    };
    expect(after(63)).toEqual([]);
    expect(after(64)).toEqual(["--semi-space-growth-factor=2"]);
    expect(after(40)).toEqual([]); // between the two bounds: no back and forth
    expect(after(31)).toEqual(["--semi-space-growth-factor=1"]);
    expect(after(50)).toEqual([]);
  });
});
