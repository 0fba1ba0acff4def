/**
 * The entry point of a generated server: `main(registry)` parses the command line, serves the registry
 * and exits cleanly on end of input or SIGTERM/SIGINT.
 */
import type { ResponseMode } from "./http/options.js";
import type { Registry } from "./registry.js";
import { coreOf, createServer, type Server } from "./server.js";
import { serveStdio } from "./stdio.js";
import { START_UP_MS } from "./ticks.js";

export interface CliOptions {
  transport: "stdio" | "http";
  pageSize?: number;
  /** HTTP only: interface (default 127.0.0.1), port (default 3000), endpoint path (default /mcp). */
  host?: string;
  port?: number;
  path?: string;
  /** HTTP only: serve the 2025 era without sessions. */
  stateless?: boolean;
  /** HTTP only: extra allowed Host names / Origins (`*` turns the check off), CORS origins. */
  allowedHosts?: string[];
  allowedOrigins?: string[];
  corsOrigins?: string[];
  responseMode?: ResponseMode;
  maxBodyBytes?: number;
  /** Shared state on Redis for several instances (`--redis`, else `REDIS_URL`). */
  redis?: string;
}

export type ParsedArgs = { kind: "serve"; options: CliOptions } | { kind: "help" } | { kind: "error"; message: string };

export function usage(name: string): string {
  return `Usage: ${name} [options]

Serves the MCP server "${name}".

Options:
  --stdio                 serve over stdin/stdout (default)
  --http                  serve Streamable HTTP instead
  --host <address>        HTTP: interface to bind (default 127.0.0.1, loopback only)
  --port <n>              HTTP: port (default 3000; 0 picks a free one)
  --path <path>           HTTP: the MCP endpoint (default /mcp)
  --stateless             HTTP: no 2025-era sessions (any instance can answer any request)
  --allowed-host <name>   HTTP: also accept this Host name (repeatable; * accepts any)
  --allowed-origin <url>  HTTP: accept this browser Origin (repeatable; * accepts any)
  --cors-origin <url>     HTTP: allow cross-origin calls from this origin (repeatable; * for any)
  --response-mode <mode>  HTTP: auto (default), json or sse
  --max-body <bytes>      HTTP: largest request body (default 4194304)
  --page-size <n>         entries per page of every list (default: all in one page)
  --redis <url>           share tasks, change notifications and stream events with the other instances
                          of this server through Redis (default: $REDIS_URL; needs @redis/client)
  -h, --help              show this help
`;
}

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const options: CliOptions = { transport: "stdio" };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    switch (flag) {
      case "-h":
      case "--help":
        return { kind: "help" };
      case "--stdio":
        if (inline !== undefined) return { kind: "error", message: "--stdio takes no value" };
        options.transport = "stdio";
        break;
      case "--http":
      case "--stateless":
        if (inline !== undefined) return { kind: "error", message: `${flag} takes no value` };
        if (flag === "--http") options.transport = "http";
        else options.stateless = true;
        break;
      case "--page-size":
      case "--port":
      case "--max-body": {
        const value = inline ?? argv[++i];
        if (value === undefined) return { kind: "error", message: `${flag} needs a value` };
        const zeroOk = flag === "--port";
        if (!(zeroOk ? /^(0|[1-9][0-9]*)$/ : /^[1-9][0-9]*$/).test(value) || !Number.isSafeInteger(Number(value)) || (zeroOk && Number(value) > 65535)) {
          return { kind: "error", message: `${flag} must be a ${zeroOk ? "port number" : "positive integer"}, got "${value}"` };
        }
        if (flag === "--page-size") options.pageSize = Number(value);
        else if (flag === "--port") options.port = Number(value);
        else options.maxBodyBytes = Number(value);
        break;
      }
      case "--redis":
      case "--host":
      case "--path":
      case "--allowed-host":
      case "--allowed-origin":
      case "--cors-origin":
      case "--response-mode": {
        const value = inline ?? argv[++i];
        if (value === undefined || value === "") return { kind: "error", message: `${flag} needs a value` };
        if (flag === "--redis") options.redis = value;
        else if (flag === "--host") options.host = value;
        else if (flag === "--path") {
          if (!value.startsWith("/")) return { kind: "error", message: `--path must start with "/", got "${value}"` };
          options.path = value;
        } else if (flag === "--response-mode") {
          if (value !== "auto" && value !== "json" && value !== "sse") return { kind: "error", message: `--response-mode must be auto, json or sse, got "${value}"` };
          options.responseMode = value;
        } else {
          const key = flag === "--allowed-host" ? "allowedHosts" : flag === "--allowed-origin" ? "allowedOrigins" : "corsOrigins";
          (options[key] ??= []).push(value);
        }
        break;
      }
      default:
        return { kind: "error", message: arg.startsWith("-") ? `unknown option ${flag}` : `unexpected argument "${arg}"` };
    }
  }
  if (options.transport === "stdio") {
    const flags: Record<string, string> = {
      host: "--host",
      port: "--port",
      path: "--path",
      stateless: "--stateless",
      allowedHosts: "--allowed-host",
      allowedOrigins: "--allowed-origin",
      corsOrigins: "--cors-origin",
      responseMode: "--response-mode",
      maxBodyBytes: "--max-body",
    };
    const httpOnly = Object.keys(flags).find((key) => key in options);
    if (httpOnly) return { kind: "error", message: `${flags[httpOnly]} needs --http` };
  }
  return { kind: "serve", options };
}

/**
 * Runs a server for `registry`. Exit codes: 0 after a clean shutdown or `--help`, 2 for a bad command
 * line. Resolves when the server has stopped (the process then exits, even if a handler that ignored
 * cancellation still holds the event loop).
 */
export async function main(registry: Registry, argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const name = registry.server.name;
  const parsed = parseArgs(argv);
  if (parsed.kind === "help") {
    process.stdout.write(usage(name));
    return;
  }
  if (parsed.kind === "error") {
    process.stderr.write(`${name}: ${parsed.message}\nRun "${name} --help" for the options.\n`);
    process.exitCode = 2;
    return;
  }
  keepConsoleOffStdout();
  process.on("unhandledRejection", (reason) => console.error("[mcpgen] unhandled rejection in a handler:", reason));
  const options = parsed.options;
  const redisUrl = options.redis ?? (process.env.REDIS_URL || undefined);
  let shared: Shared | undefined;
  if (redisUrl !== undefined) {
    try {
      shared = await connectShared(redisUrl);
    } catch (error) {
      process.stderr.write(`${name}: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
      return;
    }
  }
  const server = createServer(registry, {
    ...(options.pageSize !== undefined && { pageSize: options.pageSize }),
    ...(shared && { bus: shared.state.bus, tasks: { store: shared.tasks }, requestStateSecret: shared.secret }),
  });
  afterStartUp(server);
  await server.ready;
  if (options.transport === "http") {
    await serveHttp(server, options, name, shared);
    await shared?.close();
    process.exit(0);
  }
  const session = serveStdio(server);
  const stop = (): void => void session.close();
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  await session.closed;
  await shared?.close();
  process.exit(0);
}

/**
 * What waits until start-up is over (`START_UP_MS`), so that a client's first requests are answered sooner:
 * tuning the heap, and loading what the first call will need (`Core.preload`), which a client seldom makes
 * that soon after the lists.
 */
function afterStartUp(server: Server): void {
  const timer = setTimeout(() => {
    coreOf(server).preload();
    void import("node:v8").then((v8) => tuneHeap(v8));
  }, START_UP_MS);
  timer.unref();
}

export interface TuneHeapOptions {
  /** Runs `check` after each garbage collection and returns what stops it (default: a `PerformanceObserver` of `gc` entries). */
  watchGc?: (check: () => void) => () => void;
}

/**
 * The V8 heap sizing of a server process (main() sets it once start-up is over: loading node:v8 takes about
 * 2 ms, which the first requests need not wait for). Exported for a custom entry point (and the benchmarks'
 * servers) that wants the same: call it with `node:v8`. It is for a process that is the server's own.
 * - Under many requests in flight V8 grows its young generation from 1 MiB semi-spaces to 16 MiB for
 *   short-lived objects that a server frees within microseconds. The first step is worth having: at 32 HTTP
 *   connections, 2 MiB semi-spaces take ~5 % less CPU per request than 1 MiB (fewer scavenges, each walking
 *   the same roots) for ~3 MiB of RSS, where 16 MiB add ~23 MiB of RSS for little more; over stdio, 5 %
 *   less per pipelined call, 3 % per 100-tool `tools/list` and 2–9 % per call in process, for 2–3 MiB more
 *   peak RSS (BENCHMARKS.md). So the young generation may grow until its semi-spaces hold `SEMI_SPACE`
 *   bytes, checked after every collection (V8 shrinks it again when allocation slows down; it may then
 *   grow back).
 * - The state of calls in flight that survives a scavenge lands in the old generation, which V8 then lets
 *   grow to several times what is live before collecting it: growing it by half what is live instead holds
 *   peak RSS under pipelined load at 60 instead of 66 MiB, at no measured cost in throughput.
 * - A large old generation (thousands of sessions, a handler's caches) turns the first trade around: every
 *   scavenge walks the list of old-generation pages, and what each one promotes brings the next full
 *   collection of that large heap nearer, so a small young generation costs throughput in proportion to the
 *   old one. While the heap holds more than `LARGE_HEAP` bytes the young generation may grow as V8 likes
 *   (10,000 sessions: 20–45 MiB more RSS, and a load on another session within 10 % of the throughput of a
 *   server without sessions, where it was at 0.88–0.91×).
 * - V8 scavenges on several threads, waking its helpers for each scavenge. A young generation of 1 or 2 MiB
 *   takes a fraction of a millisecond to scavenge, and the wake-ups cost more than they save: at 32 HTTP
 *   connections, scavenging on one thread took ~4 % less CPU per request; over stdio, 64 calls in flight,
 *   2–5 % (BENCHMARKS.md). So while the heap is not large a server scavenges on one thread; with a large heap
 *   (a young generation of up to 16 MiB) as V8 likes.
 *
 * While the young generation may grow towards `SEMI_SPACE`, `options.watchGc` runs a check after each
 * garbage collection (by default through a `PerformanceObserver` of `gc` entries) and returns what stops it.
 * Only then: Node makes a performance entry of every collection it observes, 3–7 % of the CPU of a server
 * under load (BENCHMARKS.md), so a server whose young generation is where it should be is checked every
 * `HEAP_CHECK_MS` only, which also lets it grow again once V8 has shrunk it.
 */
export function tuneHeap(v8: typeof import("node:v8"), options: TuneHeapOptions = {}): void {
  const watchGc = options.watchGc ?? observeGc;
  v8.setFlagsFromString("--heap-growing-percent=50");
  let large = false;
  let growth = 0;
  let unwatch: (() => void) | undefined;
  let parallel = true;
  const grow = (): void => {
    // V8 doubles the young generation when it grows it.
    const growing = !large && youngSemiSpace(v8) * 2 <= SEMI_SPACE;
    const factor = large || growing ? 2 : 1;
    if (growing) unwatch ??= watchGc(grow);
    else {
      unwatch?.();
      unwatch = undefined;
    }
    if (factor === growth) return;
    growth = factor;
    v8.setFlagsFromString(`--semi-space-growth-factor=${factor}`);
  };
  const size = (): void => {
    large = v8.getHeapStatistics().used_heap_size >= (large ? LARGE_HEAP / 2 : LARGE_HEAP);
    if (parallel !== large) {
      parallel = large;
      v8.setFlagsFromString(parallel ? "--parallel-scavenge" : "--no-parallel-scavenge");
    }
    grow();
  };
  size();
  setInterval(size, HEAP_CHECK_MS).unref();
}
/** Over this much heap in use the young generation may grow (and stays small again under half of it). */
const LARGE_HEAP = 64 * 2 ** 20;
/** The young generation grows (while the heap is not large) until each semi-space holds this much. */
const SEMI_SPACE = 2 * 2 ** 20;
const HEAP_CHECK_MS = 1000;

/**
 * What one of the young generation's semi-spaces can hold, in bytes (a little under its nominal size).
 * V8's `new_space` statistics: its `space_size` counts what is committed, not the capacity.
 */
function youngSemiSpace(v8: typeof import("node:v8")): number {
  for (const space of v8.getHeapSpaceStatistics()) if (space.space_name === "new_space") return space.space_used_size + space.space_available_size;
  return 0;
}

function observeGc(check: () => void): () => void {
  const observer = new PerformanceObserver(check);
  observer.observe({ entryTypes: ["gc"] });
  return () => observer.disconnect();
}

/** What instances share through Redis. Loaded only when a Redis URL is configured. */
interface Shared {
  readonly state: import("./state/redis.js").RedisState;
  readonly tasks: import("./state/redis-tasks.js").RedisTaskStore;
  readonly secret: string;
  close(): Promise<void>;
}

async function connectShared(url: string): Promise<Shared> {
  const [{ connectRedis }, { RedisTaskStore }] = await Promise.all([import("./state/redis.js"), import("./state/redis-tasks.js")]);
  const state = await connectRedis(url);
  const tasks = new RedisTaskStore(state.redis, state.bus, { prefix: state.prefix });
  return {
    state,
    tasks,
    secret: await state.requestStateSecret(),
    async close() {
      tasks.close();
      await state.close();
    },
  };
}

/** Serves until SIGTERM/SIGINT; the listening address goes to stderr. */
async function serveHttp(server: ReturnType<typeof createServer>, options: CliOptions, name: string, shared: Shared | undefined): Promise<void> {
  const star = (list: string[] | undefined): string[] | "*" | undefined => (list?.includes("*") ? "*" : list);
  const allowedHosts = star(options.allowedHosts);
  // Loaded only for --http: a stdio server starts without the HTTP transport.
  const [{ serve }, { LOOPBACK_HOSTS }] = await Promise.all([import("./http/node.js"), import("./http/options.js")]);
  const handle = await serve(server, {
    ...(options.host !== undefined && { host: options.host }),
    port: options.port ?? 3000,
    ...(options.path !== undefined && { path: options.path }),
    ...(options.stateless && { sessions: false }),
    ...(allowedHosts !== undefined && { allowedHosts: allowedHosts === "*" ? "*" : [...LOOPBACK_HOSTS, ...allowedHosts] }),
    ...(options.allowedOrigins !== undefined && { allowedOrigins: star(options.allowedOrigins) as string[] | "*" }),
    ...(options.corsOrigins !== undefined && { cors: { origins: star(options.corsOrigins) as string[] | "*" } }),
    ...(options.responseMode !== undefined && { responseMode: options.responseMode }),
    ...(options.maxBodyBytes !== undefined && { maxBodyBytes: options.maxBodyBytes }),
    ...(shared && !options.stateless && { eventStore: shared.state.events, sessionStore: shared.state.sessions, bus: shared.state.bus }),
  });
  console.error(`[mcpgen] ${name} listening on ${handle.url}`);
  if (!["127.0.0.1", "::1", "localhost"].includes(handle.host) && allowedHosts === undefined) {
    console.error(`[mcpgen] bound to ${handle.host}: requests must name an allowed Host; add --allowed-host <name> for the names clients use`);
  }
  await new Promise<void>((resolve) => {
    process.once("SIGTERM", resolve);
    process.once("SIGINT", resolve);
  });
  await handle.close();
}

/**
 * stdout carries protocol messages only: what handlers print with console.log/info/debug goes to stderr.
 * The console writing there is made on first use: opening `process.stderr` costs a start-up milliseconds
 * (and its class is `console.Console`: importing node:console would cost ~0.2 ms more).
 */
function keepConsoleOffStdout(): void {
  let toStderr: Console | undefined;
  const target = console as unknown as Record<string, unknown>;
  for (const method of ["log", "info", "debug", "dir", "dirxml", "table", "group", "groupCollapsed", "groupEnd", "count", "countReset", "time", "timeEnd", "timeLog"] as const) {
    target[method] = (...args: unknown[]) => {
      toStderr ??= new console.Console({ stdout: process.stderr, stderr: process.stderr });
      return (toStderr[method] as (...args: unknown[]) => unknown)(...args);
    };
  }
}
