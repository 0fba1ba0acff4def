/**
 * A real server process (the fixture server on the built runtime): command line, stdout hygiene and
 * process lifecycle. Every stdout line is checked against the spec schema. Then what the runtime tunes in the
 * process it runs in: V8's heap sizing, and the tick queue entry its transports keep.
 */
import { executionAsyncResource } from "node:async_hooks";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { serve } from "../../packages/runtime/src/http/node.js";
import { createServer, parseArgs, serveStdio, tuneHeap } from "../../packages/runtime/src/index.js";
import { keptTickEntry } from "../../packages/runtime/src/ticks.js";
import { ENVELOPE, modernPost, until } from "../helpers/wait.js";
import { assertRuntimeBuilt, builtFixture, EXAMPLE_SERVER, FIXTURE_SERVER, RawServer } from "./helpers/e2e.js";
import { registry } from "./helpers/fixtures.js";

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

  it("loads what calls need once start-up is over, before a call asks for it", async () => {
    // The example has tools and resources: both runtimes load without a request for either.
    const reporter = new URL("./helpers/report-loads.mjs", import.meta.url).pathname;
    const server = new RawServer({ ...EXAMPLE_SERVER, args: ["--import", reporter, ...EXAMPLE_SERVER.args] });
    running.push(server);
    const loaded = (file: string): boolean => server.stderr.join("").includes(`/packages/runtime/dist/${file}\n`);
    server.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: ENVELOPE } });
    expect(await server.next("2026-07-28", "tools/list")).toMatchObject({ id: 1 });
    await until(() => loaded("tool-calls.js") && loaded("primitives.js"), { what: "the tool-call and primitives runtimes to load" });
    expect(loaded("main.js")).toBe(true); // the reporter sees the runtime's modules
  });

  it("has the runtime's own modules import dist/main.js by path, not through the package's exports", () => {
    // Resolving the package's own name runs a regular expression of Node's resolver that V8 compiles on its
    // first uses in a process: ~0.6 ms for the first part of the runtime loaded after start-up.
    const dist = fileURLToPath(new URL("../../packages/runtime/dist/", import.meta.url));
    const modules = readdirSync(dist, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".js"));
    const texts = new Map(modules.map((file) => [file, readFileSync(path.join(dist, file), "utf8")]));
    expect(modules.filter((file) => /from "(\.\.?\/)+main\.js"/.test(texts.get(file) as string))).toContain("tool-calls.js");
    for (const [file, text] of texts) expect(text, file).not.toContain('"@mcpgen/runtime/main"');
  });

  it("has the package's entry point in one file beside main.js, exporting every value its source exports", async () => {
    // Each file Node loads costs ~0.5 ms however small: a handler importing ToolError loads this one.
    const file = fileURLToPath(new URL("../../packages/runtime/dist/index.js", import.meta.url));
    const staticImports = [...readFileSync(file, "utf8").matchAll(/^(?:import|export) [^;]*? from "([^"]+)";$/gm)].map((m) => m[1]);
    expect(new Set(staticImports)).toEqual(new Set(["./main.js"]));
    const source = await import("../../packages/runtime/src/index.js");
    const built = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    expect(Object.keys(built)).toEqual(expect.arrayContaining(Object.keys(source)));
    for (const name of Object.keys(source)) expect(typeof built[name], name).toBe(typeof (source as Record<string, unknown>)[name]);
  });

  it("keeps ajv's URI helper (fast-uri) out of the validator helpers, in a module of its own", async () => {
    // Two thirds of the helpers' code, which every validator with a format or a length loads.
    const dist = new URL("../../packages/runtime/dist/", import.meta.url);
    const helpers = (await import(new URL("validators.js", dist).href)) as Record<string, unknown>;
    expect(helpers).not.toHaveProperty("uri");
    expect(readFileSync(new URL("validators.js", dist), "utf8")).not.toContain("fast-uri");
    const { uri } = (await import(new URL("validators-uri.js", dist).href)) as { uri: { resolve: (base: string, ref: string) => string } };
    expect(uri.resolve("https://example.com/a/b", "../c")).toBe("https://example.com/c");
  });

  it("loads no HTTP transport with the package's entry point, and loads it when serve() or a fetch handler is used", () => {
    // What a handler module importing ToolError loads into every server, stdio ones included.
    const reporter = new URL("./helpers/report-loads.mjs", import.meta.url).pathname;
    const entry = new URL("../../packages/runtime/dist/index.js", import.meta.url).href;
    const script = `
      const { createHttpHandler, createServer, serve, ToolError } = await import(${JSON.stringify(entry)});
      const { registry } = await import(${JSON.stringify(pathToFileURL(builtFixture("core").registry).href)});
      process.stderr.write("[imported] " + typeof ToolError + "\\n");
      const discover = (url) => new Request(url, ${JSON.stringify(modernPost("server/discover", { _meta: ENVELOPE }, undefined))});
      const handler = createHttpHandler(createServer(registry));
      process.stderr.write("[stats] " + JSON.stringify(handler.stats) + "\\n");
      process.stderr.write("[fetch] " + (await handler.fetch(discover("http://127.0.0.1/mcp"))).status + "\\n");
      await handler.close();
      const handle = await serve(createServer(registry), { port: 0 });
      process.stderr.write("[serve] " + (await fetch(discover(handle.url))).status + "\\n");
      await handle.close();
    `;
    const result = spawnSync(process.execPath, ["--import", reporter, "--input-type=module", "-e", script], { encoding: "utf8", timeout: 20_000 });
    expect(result.stderr).toContain("[imported] function");
    const [before = ""] = result.stderr.split("[imported]");
    const loadedBefore = [...before.matchAll(/^\[load\] (\S+)$/gm)].map((m) => m[1] as string);
    expect(loadedBefore).toContain(entry);
    expect(loadedBefore).not.toContain("node:http");
    const runtimeFiles = loadedBefore.filter((url) => url.includes("/packages/runtime/dist/"));
    for (const url of runtimeFiles) expect(readFileSync(fileURLToPath(url), "utf8"), url).not.toMatch(/class HttpTransport\b/);
    expect(result.stderr).toContain('[stats] {"sessions":0,"streams":0,"exchanges":0}');
    expect(result.stderr).toContain("[fetch] 200");
    expect(result.stderr).toContain("[serve] 200");
    expect(result.status).toBe(0);
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

  const MiB = 2 ** 20;

  /** `tuneHeap` on a fake V8: its heap in use and young semi-space capacity, and the flags it set. */
  function fakeHeap() {
    vi.useFakeTimers({ toFake: ["setInterval"] });
    const heap = { used: 10 * MiB, young: 1 * MiB - 17_000 };
    const flags: string[] = [];
    /** The checks run after each collection, while they are watched. */
    const checks = new Set<() => void>();
    const v8 = {
      setFlagsFromString: (flag: string) => flags.push(flag),
      getHeapStatistics: () => ({ used_heap_size: heap.used }),
      // The shape V8 gives: a semi-space holds a little under its nominal size; `space_size` counts committed pages.
      getHeapSpaceStatistics: () => [
        { space_name: "old_space", space_size: 0, space_used_size: heap.used, space_available_size: 0 },
        { space_name: "new_space", space_size: 0, space_used_size: heap.young / 4, space_available_size: (heap.young * 3) / 4 },
      ],
    } as unknown as typeof import("node:v8");
    tuneHeap(v8, {
      watchGc: (check) => {
        checks.add(check);
        return () => checks.delete(check);
      },
    });
    /** The flags set once the heap is as given, after a second (the periodic check) or a collection. */
    const after = (change: Partial<typeof heap>, by: "second" | "gc" = "second"): string[] => {
      Object.assign(heap, change);
      flags.length = 0;
      if (by === "gc") for (const check of [...checks]) check();
      else vi.advanceTimersByTime(1000);
      return [...flags];
    };
    return { flags, checks, after };
  }

  it("lets the young generation grow to 2 MiB semi-spaces, checked after every collection only while it may grow", () => {
    const { flags, checks, after } = fakeHeap();
    expect(flags).toEqual(["--heap-growing-percent=50", "--no-parallel-scavenge", "--semi-space-growth-factor=2"]);
    expect(checks.size).toBe(1);
    expect(after({ young: 2 * MiB - 30_000 }, "gc")).toEqual(["--semi-space-growth-factor=1"]); // grown once: no more
    expect(checks.size).toBe(0); // nor any check after each collection
    expect(after({}, "gc")).toEqual([]);
    expect(after({ young: 1 * MiB - 17_000 }, "gc")).toEqual([]); // V8 shrank it: the next periodic check sees it
    expect(after({})).toEqual(["--semi-space-growth-factor=2"]); // and it may grow back, watched again
    expect(checks.size).toBe(1);
    expect(after({ young: 2 * MiB - 30_000 }, "gc")).toEqual(["--semi-space-growth-factor=1"]);
    expect(checks.size).toBe(0);
    // A large heap: as V8 likes (scavenging on several threads), whatever the young generation's size, unwatched;
    // back to 2 MiB on one thread once it is small again, with no back and forth between the two bounds.
    expect(after({ used: 63 * MiB })).toEqual([]);
    expect(after({ used: 64 * MiB, young: 1 * MiB - 17_000 })).toEqual(["--parallel-scavenge", "--semi-space-growth-factor=2"]);
    expect(checks.size).toBe(0);
    expect(after({ young: 8 * MiB - 120_000 }, "gc")).toEqual([]);
    expect(after({ used: 40 * MiB })).toEqual([]);
    expect(after({ used: 31 * MiB })).toEqual(["--no-parallel-scavenge", "--semi-space-growth-factor=1"]);
    expect(checks.size).toBe(0);
    expect(after({ used: 50 * MiB })).toEqual([]);
  });

  it("takes an old call's transport argument as no options", () => {
    const flags: string[] = [];
    const v8 = {
      setFlagsFromString: (flag: string) => flags.push(flag),
      getHeapStatistics: () => ({ used_heap_size: 0 }),
      getHeapSpaceStatistics: () => [{ space_name: "new_space", space_size: 0, space_used_size: 0, space_available_size: 2 * MiB - 30_000 }],
    } as unknown as typeof import("node:v8");
    vi.useFakeTimers({ toFake: ["setInterval"] });
    // 0.1 took `tuneHeap(v8, "http" | "stdio")`; JavaScript callers of that form must keep working.
    expect(() => tuneHeap(v8, "http" as never)).not.toThrow();
    expect(flags).toEqual(["--heap-growing-percent=50", "--no-parallel-scavenge", "--semi-space-growth-factor=1"]);
  });

  it("holds a real V8's young generation at 2 MiB semi-spaces under a load whose objects survive scavenges", () => {
    // Objects that outlive a scavenge or two (as a request's do) make V8 grow its young generation, doubling it
    // each time; the check after each collection must stop it after the first doubling.
    const script = `
      import v8 from "node:v8";
      import { tuneHeap } from ${JSON.stringify(new URL("../../packages/runtime/dist/main.js", import.meta.url).href)};
      tuneHeap(v8);
      const young = () => { const s = v8.getHeapSpaceStatistics().find((x) => x.space_name === "new_space"); return s.space_used_size + s.space_available_size; };
      let kept = [];
      for (let i = 0; i < 2_000_000; i++) {
        kept.push({ i, text: "x" + i });
        if (kept.length > 20_000) kept = [];
        if (i % 1000 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      console.log(young());`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 30_000 });
    expect(run.stderr).toBe("");
    const young = Number(run.stdout.trim());
    expect(young).toBeGreaterThan(1.5 * MiB); // it grew once
    expect(young).toBeLessThanOrEqual(2 * MiB); // and no further
  });
});

describe("the tick queue entry the transports keep", () => {
  /** The entry of the next `process.nextTick` callback: inside it, the current async resource. */
  const nextTickEntry = (): Promise<object> => new Promise((resolve) => process.nextTick(() => resolve(executionAsyncResource())));

  it("holds one entry from the first transport on, so that a full collection leaves the next entries their hidden class", async () => {
    const input = new PassThrough();
    const session = serveStdio(createServer(registry, { onError: () => {} }), { input, output: new PassThrough() });
    await until(() => keptTickEntry() !== undefined, { what: "the kept entry" }); // after the first turn of the event loop
    const kept = keptTickEntry();
    // Node's entry: its async ids under two symbols, then the callback and its arguments.
    expect(Object.getOwnPropertySymbols(kept).map(String)).toEqual(["Symbol(async_id_symbol)", "Symbol(trigger_async_id_symbol)"]);
    expect(Object.keys(kept!)).toEqual(["callback", "args"]);
    const handle = await serve(createServer(registry, { onError: () => {} }), { port: 0 });
    await new Promise((resolve) => setImmediate(resolve));
    await nextTickEntry();
    expect(keptTickEntry()).toBe(kept); // once per process
    // A full collection with no other entry alive: the next entry still gets the class V8's code was made for.
    v8.setFlagsFromString("--allow-natives-syntax");
    const sameClass = new Function("a", "b", "return %HaveSameMap(a, b)") as (a: object, b: object) => boolean;
    v8.setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(sameClass(kept!, await nextTickEntry())).toBe(true);
    expect(sameClass(kept!, { callback: null, args: undefined })).toBe(false); // the check tells classes apart
    input.end();
    await Promise.all([session.closed, handle.close()]);
  });
});
