/**
 * The HTTP section of the benchmarks: `tools/call add` over Streamable HTTP against the limit, a
 * bare `node:http` echo (bench/http/servers/echo.mjs) that answers the same request with the same framing in
 * both response modes, and optionally the official SDK v1 and v2 HTTP servers. Every peer is its own Node
 * process on 127.0.0.1, driven by the same raw-socket load generator (bench/http/load.mjs).
 *
 *   throughput   JSON and SSE response modes, 1, 4 and 32 connections (--connections), in each era: 2025-11-25 in one session, and
 *                2026-07-28 (no session, the envelope in every request's `_meta`, the headers that go with
 *                it; mcpgen and the echoes only): requests per second, p50 / p99 latency, server CPU per
 *                request (from /proc), peak RSS (VmHWM). The peers of a mode run side by side and take turns,
 *                round after round, each server first warmed up once in each era it speaks (its code
 *                optimized before any row counts it); medians over rounds and their spread, and mcpgen ÷
 *                echo as the median of the rounds' own ratios. Then each era's 2026 ÷ 2025. Last,
 *                the first era at the most connections again after a full GC in every server.
 *   10k sessions mcpgen with `--sessions` (10,000) sessions, each initialized and holding its standalone GET
 *                stream open: server RSS, bytes per idle session (RSS and heap after a full GC), and the
 *                32-connection throughput on another session against a second server without sessions,
 *                the two measured in turns over twice as many rounds as a throughput row (a ratio of two
 *                rates, each of which moved by ±6–7 % from round to round in three).
 *                Then the streams close, the sessions expire (the server's `sessionIdleMs`), and the memory
 *                is measured again. Beside it, the limit under the same streams: the echo holding as many
 *                GET streams open against the echo without, in turns, under the same load.
 *   sustained    mcpgen's RSS sampled over a 32-connection SSE run (60 s with --long): it must stay flat.
 *
 *   node bench/http/run.mjs [--quick] [--long] [--peers mcpgen,echo,echo-batched,echo-busy,echo-core,sdk-v1,sdk-v2] [--rounds N] [--sessions N]
 *                           [--eras 2025,2026] [--connections 1,4,32] [--busy-us N] [--only throughput,sessions,sustained] [--profile] [--heap-snapshot]
 *                           [--no-pin] [--json]
 * --connections   the throughput rows' connection counts (the largest is also measured after a full GC)
 * --busy-us N     the `echo-busy` peer's work per request (default 10 µs)
 * --heap-snapshot   heap snapshots before and after the sessions open: what a session's heap is made of
 * --no-pin    lets the scheduler place the processes; by default every server's main thread runs on CPU 0 and
 *             the load generator's on CPU 1, so that the peers are measured on the same CPU (bench/lib/pin.mjs)
 * --profile   after the rest: mcpgen under --cpu-prof for a 32-connection run per response mode, summarised
 *             (--profile-dir DIR keeps the .cpuprofile files, for Chrome DevTools or bench/lib/cpuprofile.mjs)
 * A benchmark, not a test: it prints figures (and which targets they meet) and exits 0 whatever they are.
 * Expects a compiled dist/ (`npm run bench:http` runs `npm run build` first).
 */
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { connect } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { summarize } from "../lib/cpuprofile.mjs";
import { heapByConstructor } from "../lib/heapsnapshot.mjs";
import { pinning } from "../lib/pin.mjs";
import { cpuNs, memory, writes } from "../lib/proc.mjs";
import { median, pairedRatio, quantileSorted, spread } from "../lib/stats.mjs";
import { MODERN_META, MODERN_PROTOCOL_VERSION } from "../stdio/driver.mjs";
import { setUp } from "../stdio/setup.mjs";
import { load, postBytes } from "./load.mjs";

const REPO = path.resolve(fileURLToPath(import.meta.url), "../../..");
const SERVERS = path.join(REPO, "bench", "http", "servers");
const args = process.argv.slice(2);
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const quick = args.includes("--quick");
const wanted = (option("--peers") ?? "mcpgen,echo").split(",").filter(Boolean);
const parts = (option("--only") ?? "throughput,sessions,sustained").split(",");
const PLAN = {
  ...(quick
    ? { rounds: 2, firstWarmMs: 500, warmMs: 200, ms: 500, sessions: 1000, idleMs: 2000, sustainedMs: 5000, sampleMs: 500 }
    : { rounds: 3, firstWarmMs: 3000, warmMs: 500, ms: 2000, sessions: 10_000, idleMs: 5000, sustainedMs: 20_000, sampleMs: 1000 }),
  ...(args.includes("--long") && { sustainedMs: 60_000 }),
  ...(option("--rounds") && { rounds: Number(option("--rounds")) }),
  ...(option("--sessions") && { sessions: Number(option("--sessions")) }),
};
const VERSION = "2025-11-25";
const CALL = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "add", arguments: { a: 2, b: 3 } } });
const INITIALIZE = JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: "bench", version: "1" } } });
const INITIALIZED = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
// The stdio benchmark's 2026 envelope, in every request's `_meta`, and the headers that go with it.
const MODERN_CALL = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3},${MODERN_META}}}`;
const MODERN_HEADERS = { "mcp-protocol-version": MODERN_PROTOCOL_VERSION, "mcp-method": "tools/call", "mcp-name": "add" };
const ERAS = (option("--eras") ?? "2025,2026").split(",").filter(Boolean);
/**
 * Connections of the throughput rows: one client with one request at a time; a few requests at a time, where
 * neither side ever has much to batch; a load that keeps the server busy.
 */
const CONNECTIONS = (option("--connections") ?? "1,4,32").split(",").map(Number);
if (CONNECTIONS.some((n) => !Number.isInteger(n) || n < 1)) {
  process.stderr.write(`bench: --connections takes positive integers, e.g. 1,4,32\n`);
  process.exit(2);
}
const MOST = Math.max(...CONNECTIONS);
const PIN = args.includes("--no-pin") ? undefined : pinning();
const BUSY_US = Number(option("--busy-us") ?? 10);
if (!(BUSY_US > 0)) {
  process.stderr.write(`bench: --busy-us takes a positive number of microseconds\n`);
  process.exit(2);
}
/**
 * The rows of a response mode, in order: each era at each number of connections, then the first era at the
 * most connections again after a full collection in every server (`afterGc`), the state a server is in once
 * V8 has collected its whole heap, as it does a few seconds after a busy server goes idle.
 */
const STEPS = [
  ...ERAS.flatMap((era) => CONNECTIONS.map((connections) => ({ era, connections, afterGc: false }))),
  ...ERAS.slice(0, 1).map((era) => ({ era, connections: MOST, afterGc: true })),
];
/** A step's (or row's) era as the report names it. */
const eraName = ({ era, afterGc }) => `${era}${afterGc ? " after a full GC" : ""}`;
/** The peers that speak the 2026-07-28 era (the official SDKs here do not). */
const speaksModern = (peer) => peer.key === "mcpgen" || peer.key.startsWith("echo");
/** The era's 2026 ÷ 2025 that the stdio rows are held to. */
const ERA_TARGET = 0.95;
const log = (line) => process.stderr.write(`bench: ${line}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** Targets against the limit (echo): throughput ≥ 0.9×, costs ≤ 1.1×. */
const RATE_TARGET = 0.9;
const COST_TARGET = 1.1;
const RSS_LIMIT_MIB = 1024;

const root = mkdtempSync(path.join(os.tmpdir(), "mcpgen-bench-http-"));
const children = new Set();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

log("building the example server…");
const started = performance.now();
const loadStart = os.loadavg()[0];
const { example } = await setUp(REPO, root, { log });
// The echoes answer 2026-era results with the example's own server info, as mcpgen does.
const { registry } = await import(pathToFileURL(path.join(path.dirname(example.entry), "registry.gen.js")).href);
const SERVER_INFO = ["--server-info", JSON.stringify({ name: registry.server.name, version: registry.server.version })];

const PEERS = [
  { key: "mcpgen", label: "mcpgen", script: "mcpgen.mjs", args: [example.entry] },
  { key: "echo", label: "echo (node:http)", script: "echo.mjs", args: SERVER_INFO },
  // The limit doing a little more work per request (10 µs unless --busy-us says): what that costs on this stack.
  { key: "echo-busy", label: `echo + ${BUSY_US} µs/req`, script: "echo.mjs", args: [...SERVER_INFO, "--busy-us", String(BUSY_US)] },
  // The limit writing its answers as mcpgen's adapter does: with more than 8 connections open, a turn's answers together, at its end.
  { key: "echo-batched", label: "echo, batched writes", script: "echo.mjs", args: [...SERVER_INFO, "--batch"] },
  // The echo answering through mcpgen's core: how much of mcpgen's distance to the limit is its core.
  { key: "echo-core", label: "echo + mcpgen's core", script: "echo.mjs", args: [...SERVER_INFO, "--core", example.entry] },
  { key: "sdk-v1", label: "SDK v1", script: "sdk-v1.mjs", args: [] },
  { key: "sdk-v2", label: "SDK v2", script: "sdk-v2.mjs", args: [] },
].filter((peer) => wanted.includes(peer.key));

/** Starts a peer; resolves once it printed READY. */
async function startPeer(peer, mode, { nodeArgs = [], extra = [] } = {}) {
  PIN?.release(); // the server's threads inherit this one's CPUs
  const child = spawn(process.execPath, ["--expose-gc", ...nodeArgs, path.join(SERVERS, peer.script), ...peer.args, "--mode", mode, ...extra], {
    cwd: root,
    stdio: ["pipe", "pipe", "inherit"],
  });
  children.add(child);
  const exited = new Promise((resolve) => child.on("exit", resolve));
  exited.then(() => children.delete(child));
  let out = "";
  const waiting = [];
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    out += chunk;
    for (;;) {
      const newline = out.indexOf("\n");
      if (newline === -1) break;
      const line = out.slice(0, newline);
      out = out.slice(newline + 1);
      waiting.shift()?.(line);
    }
  });
  const next = () => new Promise((resolve) => waiting.push(resolve));
  let timer;
  const readyLine = await Promise.race([next(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${peer.key} did not start`)), 20_000)))]);
  clearTimeout(timer);
  PIN?.server(child.pid);
  PIN?.self();
  return {
    url: readyLine.replace(/^READY /, ""),
    pid: child.pid,
    /** A full GC in the server, then its `process.memoryUsage()`. */
    async heap() {
      child.stdin.write("gc\n");
      return JSON.parse((await next()).replace(/^MEM /, ""));
    },
    /** A heap snapshot written to `file`, summarised by constructor. */
    async snapshot(file) {
      child.stdin.write(`snapshot ${file}\n`);
      await next();
      return heapByConstructor(file);
    },
    /** Its memory now, without a GC: `process.memoryUsage()` and V8's heap spaces. */
    async spaces() {
      child.stdin.write("spaces\n");
      return JSON.parse((await next()).replace(/^MEM /, ""));
    },
    /** Ends stdin (the server exits, writing a CPU profile if it records one); killed after 10 s. */
    async stop() {
      child.stdin.end();
      const timeout = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timeout);
    },
  };
}

/** initialize + notifications/initialized; returns the session id (the echo has none and needs none). */
async function openSession(server, peer) {
  if (peer.key.startsWith("echo")) return "echo";
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const init = await fetch(server.url, { method: "POST", headers, body: INITIALIZE });
  await init.text();
  const session = init.headers.get("mcp-session-id");
  if (!init.ok || !session) throw new Error(`initialize failed on ${server.url}: ${init.status}`);
  const done = await fetch(server.url, { method: "POST", headers: { ...headers, "mcp-session-id": session, "mcp-protocol-version": VERSION }, body: INITIALIZED });
  await done.text();
  return session;
}

/** One measured run over `connections` connections on `session` (2025 era), or of 2026-era requests (`session` undefined). */
async function measure(server, session, connections, ms = PLAN.ms, warmMs = PLAN.warmMs) {
  const request = session === undefined ? postBytes(server.url, MODERN_CALL, MODERN_HEADERS) : postBytes(server.url, CALL, { "mcp-session-id": session, "mcp-protocol-version": VERSION });
  const start = { cpu: 0, writes: 0 };
  const end = { cpu: 0, writes: 0 };
  const result = await load(server.url, request, {
    connections,
    ms,
    warmMs,
    onWindow: (edge) => Object.assign(edge === "start" ? start : end, { cpu: cpuNs(server.pid), writes: writes(server.pid) }),
  });
  return {
    rate: (result.requests / result.elapsedMs) * 1000,
    p50Us: quantileSorted(result.latenciesUs, 0.5),
    p99Us: quantileSorted(result.latenciesUs, 0.99),
    cpuUs: result.requests > 0 ? (end.cpu - start.cpu) / 1000 / result.requests : NaN,
    writesPerRequest: result.requests > 0 ? (end.writes - start.writes) / result.requests : NaN,
    errors: result.errors,
  };
}

// ── throughput: the peers of one mode side by side, taking turns ──

const METRICS = [
  ["rate", "req/s", true],
  ["p50Us", "p50 µs", false],
  ["p99Us", "p99 µs", false],
  ["cpuUs", "server CPU µs/req", false],
  ["writesPerRequest", "server writes/req", false],
  ["peakRssMiB", "peak RSS MiB", false],
];
const rows = [];
for (const mode of parts.includes("throughput") ? ["json", "sse"] : []) {
  const servers = [];
  try {
    for (const peer of PEERS) {
      const server = await startPeer(peer, mode);
      servers.push({ peer, server, session: await openSession(server, peer) });
    }
    // Each server warmed up once, in both eras, before its first row. A fresh process spends its first seconds
    // optimizing its code, on V8's compiler threads (server CPU) and in memory it touches for the first time;
    // the row-by-row warm-up alone left that in the first rows, against the peer with more code to optimize.
    for (const { peer, server, session } of servers) {
      log(`${mode}: ${peer.key} warming up (${PLAN.firstWarmMs} ms per era)`);
      await measure(server, session, 32, PLAN.firstWarmMs, 0);
      if (speaksModern(peer)) await measure(server, undefined, 32, PLAN.firstWarmMs, 0);
    }
    for (const { era, connections, afterGc } of STEPS) {
      const inEra = era === "2026" ? servers.filter(({ peer }) => speaksModern(peer)) : servers;
      if (afterGc) await Promise.all(inEra.map(({ server }) => server.heap()));
      const rounds = inEra.map(() => []);
      for (let r = 0; r < PLAN.rounds; r++) {
        log(`${mode} ${eraName({ era, afterGc })} ×${connections}: round ${r + 1}/${PLAN.rounds}`);
        const turn = [...inEra.keys()].slice(r % inEra.length).concat([...inEra.keys()].slice(0, r % inEra.length));
        for (const i of turn) rounds[i].push(await measure(inEra[i].server, era === "2026" ? undefined : inEra[i].session, connections));
      }
      inEra.forEach(({ peer, server }, i) => {
        const row = { peer: peer.key, label: peer.label, mode, era, connections, afterGc, errors: rounds[i].reduce((n, m) => n + m.errors, 0), rounds: rounds[i] };
        for (const [metric] of METRICS.slice(0, 5)) {
          const values = rounds[i].map((m) => m[metric]);
          row[metric] = median(values);
          row[`${metric}Spread`] = spread(values);
        }
        row.peakRssMiB = memory(server.pid).peakRssKiB / 1024; // VmHWM so far: after this mode's rows up to this one
        rows.push(row);
      });
    }
  } finally {
    await Promise.all(servers.map(({ server }) => server.stop()));
  }
}

// ── 10,000 idle sessions, each holding its standalone GET stream ──

/** Opens one session on its own socket (initialize, initialized, then the GET stream on the same socket). */
function openStreamingSession(url) {
  const { hostname, port, pathname, host } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let buffer = "";
    let step = 0;
    let session;
    const head = (method, extra, body) =>
      `${method} ${pathname} HTTP/1.1\r\nhost: ${host}\r\n${extra}${body === undefined ? "" : `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`}\r\n${body ?? ""}`;
    socket.setEncoding("latin1");
    socket.on("error", reject);
    socket.on("data", (chunk) => {
      buffer += chunk;
      const end = buffer.indexOf("\r\n\r\n");
      if (end === -1) return;
      const headers = buffer.slice(0, end);
      let bodyEnd = end + 4; // the answers before the stream: a Content-Length body, or a chunked one
      if (step < 2) {
        const length = /\r\ncontent-length: (\d+)/i.exec(headers);
        if (length) bodyEnd += Number(length[1]);
        else if (/\r\ntransfer-encoding: chunked/i.test(headers)) {
          const last = buffer.startsWith("0\r\n\r\n", bodyEnd) ? bodyEnd - 2 : buffer.indexOf("\r\n0\r\n\r\n", bodyEnd);
          if (last === -1) return;
          bodyEnd = last + 7;
        }
        if (buffer.length < bodyEnd) return;
      }
      const status = headers.slice(9, 12);
      buffer = buffer.slice(bodyEnd);
      if (step === 0) {
        session = /\r\nmcp-session-id: ([^\r]+)/i.exec(headers)?.[1];
        if (status !== "200" || !session) return reject(new Error(`initialize: ${status}`));
        step = 1;
        socket.write(head("POST", `accept: application/json, text/event-stream\r\nmcp-session-id: ${session}\r\nmcp-protocol-version: ${VERSION}\r\n`, INITIALIZED));
      } else if (step === 1) {
        if (status !== "202") return reject(new Error(`notifications/initialized: ${status}`));
        step = 2;
        socket.write(head("GET", `accept: text/event-stream\r\nmcp-session-id: ${session}\r\nmcp-protocol-version: ${VERSION}\r\n`));
      } else if (step === 2) {
        if (status !== "200") return reject(new Error(`GET stream: ${status}`));
        step = 3;
        buffer = "";
        resolve({ socket, session });
      } else buffer = ""; // keep-alive comments on the open stream
    });
    socket.write(head("POST", "accept: application/json, text/event-stream\r\n", INITIALIZE));
  });
}

/** The status a POST to `session` gets (404 once the session has expired). */
async function sessionStatus(url, session) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": session, "mcp-protocol-version": VERSION },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
  });
  await response.text();
  return response.status;
}

async function manySessions(peer, count) {
  const server = await startPeer(peer, "json", { extra: ["--idle-ms", String(PLAN.idleMs)] });
  // The control: the same server with no other sessions, measured in turns with the loaded one.
  const control = await startPeer(peer, "json", { extra: ["--idle-ms", String(PLAN.idleMs)] });
  const streams = [];
  try {
    // Both servers get the same warm-up and the same full collections (`heap()` measures after one), so that
    // they differ only in the sessions: what a request costs can change after a full collection (the
    // throughput rows "after a full GC").
    await Promise.all([openSession(server, peer), openSession(control, peer)]); // warm: code loaded, first allocations made
    const [before] = await Promise.all([server.heap(), control.heap()]);
    const rssBefore = memory(server.pid).rssKiB;
    const snapshots = args.includes("--heap-snapshot") ? [await server.snapshot(path.join(root, "before.heapsnapshot"))] : [];
    log(`${count} sessions: opening, each with its GET stream`);
    const openStart = performance.now();
    streams.push(...(await openStreams(server, count)));
    const openMs = performance.now() - openStart;
    const [held] = await Promise.all([server.heap(), control.heap()]);
    const rssHeld = memory(server.pid).rssKiB;
    if (snapshots.length) snapshots.push(await server.snapshot(path.join(root, "held.heapsnapshot")));
    log(`${count} sessions: 32-connection load on another session, in turns with a server without sessions`);
    const load = await loadInTurns(server, control, peer);
    const rssLoaded = memory(server.pid).rssKiB;
    log(`${count} sessions: streams closed, waiting for the sessions to expire (idle ${PLAN.idleMs} ms)`);
    for (const { socket } of streams) socket.destroy();
    const expiryStart = performance.now();
    // A probe is traffic and keeps its session alive, so each probe asks about another session, newest first.
    let expired = false;
    for (let probe = streams.length - 1; probe >= Math.max(0, streams.length - 200) && !expired; probe--) {
      await sleep(250);
      expired = (await sessionStatus(server.url, streams[probe].session)) === 404;
    }
    const expiryMs = performance.now() - expiryStart;
    await sleep(200);
    const after = await server.heap();
    const rssAfter = memory(server.pid).rssKiB;
    return {
      count,
      openMs,
      idleMs: PLAN.idleMs,
      rssBeforeMiB: rssBefore / 1024,
      rssHeldMiB: rssHeld / 1024,
      rssLoadedMiB: rssLoaded / 1024,
      rssAfterMiB: rssAfter / 1024,
      peakRssMiB: memory(server.pid).peakRssKiB / 1024,
      rssPerSessionB: ((rssHeld - rssBefore) * 1024) / count,
      heapPerSessionB: (held.heapUsed - before.heapUsed) / count,
      heapBeforeMiB: before.heapUsed / 2 ** 20,
      heapHeldMiB: held.heapUsed / 2 ** 20,
      heapAfterMiB: after.heapUsed / 2 ** 20,
      /** Share of the sessions' heap that came back after expiry. */
      heapReturned: (held.heapUsed - after.heapUsed) / Math.max(1, held.heapUsed - before.heapUsed),
      expired,
      expiryMs,
      ...load,
      perSession: snapshots.length ? perSession(snapshots[0], snapshots[1], count) : undefined,
    };
  } finally {
    for (const { socket } of streams) socket.destroy();
    await Promise.all([server.stop(), control.stop()]);
  }
}

/** `count` sessions on `server`, each initialized and holding its GET stream, opened 64 at a time. */
async function openStreams(server, count) {
  const streams = [];
  for (let opened = 0; opened < count; opened += 64) {
    streams.push(...(await Promise.all(Array.from({ length: Math.min(64, count - opened) }, () => openStreamingSession(server.url)))));
  }
  return streams;
}

/**
 * The 32-connection load on a session of `server`, in turns with the same on `control`: medians of the rate
 * and the server CPU per request of each, their ratio, and how many requests failed (a 404 would say a session expired:
 * the rates then mean nothing).
 */
async function loadInTurns(server, control, peer) {
  const loadedRuns = [];
  const controlRuns = [];
  const loadSession = await openSession(server, peer);
  const controlSession = await openSession(control, peer);
  // Each server's session expires after PLAN.idleMs without traffic, shorter than two measurements of the
  // other server back to back (as the turns put them): a ping just before each measurement keeps the other
  // server's session alive through it.
  const loadedTurn = async () => {
    await sessionStatus(control.url, controlSession);
    loadedRuns.push(await measure(server, loadSession, 32));
  };
  const controlTurn = async () => {
    await sessionStatus(server.url, loadSession);
    controlRuns.push(await measure(control, controlSession, 32));
  };
  for (let r = 0; r < PLAN.rounds * 2; r++) {
    if (r % 2) await controlTurn();
    await loadedTurn();
    if (r % 2 === 0) await controlTurn();
  }
  const summary = (runs) => ({ rate: median(runs.map((m) => m.rate)), cpuUs: median(runs.map((m) => m.cpuUs)), spread: spread(runs.map((m) => m.rate)) });
  const [loaded, alone] = [summary(loadedRuns), summary(controlRuns)];
  return { loaded, alone, loadRatio: loaded.rate / alone.rate, failed: [...loadedRuns, ...controlRuns].reduce((sum, m) => sum + m.errors, 0) };
}

/**
 * The limit under the same open streams: the echo with `count` GET streams open (its bare sessions: see
 * servers/echo.mjs) against the echo without, in turns. Whatever holding that many connections costs Node's
 * HTTP server and the kernel per request shows here, without any MCP machinery.
 */
async function limitUnderStreams(peer, count) {
  const server = await startPeer(peer, "json");
  const control = await startPeer(peer, "json");
  let streams = [];
  try {
    log(`${count} streams on the limit (${peer.key}): opening, then the same load in turns with an echo without them`);
    streams = await openStreams(server, count);
    return await loadInTurns(server, control, peer);
  } finally {
    for (const { socket } of streams) socket.destroy();
    await Promise.all([server.stop(), control.stop()]);
  }
}

/** What a session's heap is made of: the growth of each group between two snapshots, per session. */
function perSession(before, after, count) {
  const was = new Map(before.top.map((g) => [g.name, g]));
  return after.top
    .map((g) => ({ name: g.name, bytes: (g.bytes - (was.get(g.name)?.bytes ?? 0)) / count, count: (g.count - (was.get(g.name)?.count ?? 0)) / count }))
    .filter((g) => g.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
}

const mcpgenPeer = PEERS.find((p) => p.key === "mcpgen");
const echoPeer = PEERS.find((p) => p.key === "echo");
const sessions = mcpgenPeer && parts.includes("sessions") ? await manySessions(mcpgenPeer, PLAN.sessions) : undefined;
if (sessions && echoPeer) sessions.limit = await limitUnderStreams(echoPeer, PLAN.sessions);

// ── sustained SSE load: RSS must stay flat ──

async function sustained(peer) {
  const server = await startPeer(peer, "sse");
  try {
    const session = await openSession(server, peer);
    const heapStart = await server.heap();
    const samples = [];
    const spaces = [];
    const timer = setInterval(() => {
      samples.push(memory(server.pid).rssKiB / 1024);
      void server.spaces().then((s) => spaces.push(s));
    }, PLAN.sampleMs);
    const result = await measure(server, session, 32, PLAN.sustainedMs, 0);
    clearInterval(timer);
    await sleep(50);
    // Where RSS went between the first settled sample and the last: V8's spaces, and memory outside the heap.
    const from = spaces[Math.floor(spaces.length / 4)];
    const to = spaces.at(-1);
    const mib = (x) => Math.round((x / 2 ** 20) * 10) / 10;
    const where = from && to ? {
      newSpaceMiB: [mib(from.spaces.new_space), mib(to.spaces.new_space)],
      oldSpaceMiB: [mib(from.spaces.old_space), mib(to.spaces.old_space)],
      heapTotalMiB: [mib(from.heapTotal), mib(to.heapTotal)],
      outsideHeapMiB: [mib(from.rss - from.heapTotal), mib(to.rss - to.heapTotal)],
      externalMiB: [mib(from.external), mib(to.external)],
    } : undefined;
    const heapEnd = await server.heap();
    const settled = samples.slice(Math.floor(samples.length / 4)); // after warm-up
    return {
      peer: peer.key,
      label: peer.label,
      rate: result.rate,
      seconds: PLAN.sustainedMs / 1000,
      firstMiB: settled[0],
      lastMiB: settled.at(-1),
      maxMiB: Math.max(...settled),
      growthMiB: settled.at(-1) - settled[0],
      heapStartMiB: heapStart.heapUsed / 2 ** 20,
      heapEndMiB: heapEnd.heapUsed / 2 ** 20,
      samples: samples.map((x) => Math.round(x * 10) / 10),
      where,
    };
  } finally {
    await server.stop();
  }
}

const flat = [];
for (const peer of PEERS.filter((p) => parts.includes("sustained") && (p.key === "mcpgen" || p.key === "echo"))) {
  log(`${peer.label}: sustained SSE load for ${PLAN.sustainedMs / 1000} s…`);
  flat.push(await sustained(peer));
}

// ── --profile: mcpgen under --cpu-prof, one 32-connection run per response mode ──

const profiles = [];
if (args.includes("--profile") && mcpgenPeer) {
  for (const mode of ["json", "sse"]) {
    log(`profile: mcpgen ${mode} under --cpu-prof`);
    const dir = path.join(root, `cpu-profile-${mode}`);
    const server = await startPeer(mcpgenPeer, mode, { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`] });
    const result = await measure(server, await openSession(server, mcpgenPeer), 32, PLAN.ms * 4);
    await server.stop();
    const [file] = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"));
    if (option("--profile-dir")) cpSync(path.join(dir, file), path.join(option("--profile-dir"), `mcpgen-http-${mode}.cpuprofile`));
    profiles.push({ mode, rate: result.rate, ...summarize(path.join(dir, file), { top: 20, noFile: "(natives: V8 builtins, syscalls)" }) });
  }
}

// ── report ──

const fmt = (value, digits = 0) => (Number.isFinite(value) ? value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits }) : "–");
const mark = (ok) => (ok ? "✓" : "✗");
if (args.includes("--json")) {
  process.stdout.write(`${JSON.stringify({ plan: PLAN, pinned: PIN?.description ?? null, rows, sessions, flat, profiles }, null, 2)}\n`);
  process.exit(0);
}
const out = [];
out.push(
  `mcpgen HTTP benchmark: node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}; load average ${fmt(loadStart, 2)} at start, ${fmt(os.loadavg()[0], 2)} at end`,
);
out.push(
  `tools/call add on 127.0.0.1: 2025 = one 2025-11-25 session, 2026 = 2026-07-28 requests (envelope in _meta, no session); ${PLAN.rounds} rounds of ${PLAN.ms} ms (after ${PLAN.warmMs} ms warm-up; each server first warmed up ${PLAN.firstWarmMs} ms per era at 32 connections), the peers of a mode taking turns; medians ± half the spread between rounds, ratios the median of the rounds' own; ${PIN ? PIN.description : "processes placed by the scheduler"}`,
);
out.push("");
const find = (peer, mode, era, connections, afterGc = false) =>
  rows.find((r) => r.peer === peer && r.mode === mode && r.era === era && r.connections === connections && r.afterGc === afterGc);
const peerKeys = PEERS.map((p) => p.key);
/**
 * mcpgen ÷ echo on one row: the median of each round's own ratio (the peers of a round are measured one right
 * after the other, while this machine's speed moves from round to round), or of the row's figures for what is
 * measured once (peak RSS).
 */
const rowRatio = (mRow, eRow, metric) => {
  const perRound = (row) => row.rounds.map((m) => m[metric]);
  return pairedRatio(perRound(mRow), perRound(eRow)) ?? mRow[metric] / eRow[metric];
};
if (rows.length) out.push(`| mode, connections | metric | ${PEERS.map((p) => p.label).join(" | ")} | mcpgen ÷ echo | target | |`);
if (rows.length) out.push(`| --- | --- | ${PEERS.map(() => "---:").join(" | ")} | ---: | --- | --- |`);
const groups = rows.length ? ["json", "sse"].flatMap((mode) => STEPS.map((step) => ({ mode, ...step }))) : [];
for (const { mode, era, connections, afterGc } of groups) {
  for (const [metric, label, higherIsBetter] of METRICS) {
    const cells = peerKeys.map((k) => {
      const r = find(k, mode, era, connections, afterGc);
      if (!r) return "";
      const s = r[`${metric}Spread`];
      return `${fmt(r[metric], metric === "cpuUs" || metric === "writesPerRequest" ? 2 : 0)}${s === undefined ? "" : ` ±${Math.round(s * 50)}%`}`;
    });
    const mRow = find("mcpgen", mode, era, connections, afterGc);
    const eRow = find("echo", mode, era, connections, afterGc);
    const ratio = mRow?.[metric] === undefined || eRow?.[metric] === undefined ? undefined : rowRatio(mRow, eRow, metric);
    const targeted = metric === "rate" || metric === "cpuUs" || metric === "peakRssMiB";
    const ok = ratio === undefined || !targeted ? undefined : higherIsBetter ? ratio >= RATE_TARGET : ratio <= COST_TARGET;
    const name = metric === "rate" ? `${mode.toUpperCase()}${mode === "sse" ? " (echo: SSE too)" : ""} ${eraName({ era, afterGc })}, ${connections}` : "";
    out.push(
      `| ${name} | ${label} | ${cells.join(" | ")} | ${ratio === undefined ? "" : `${fmt(ratio, 2)}×`} | ${targeted ? (higherIsBetter ? `≥ ${RATE_TARGET}×` : `≤ ${COST_TARGET}×`) : ""} | ${ok === undefined ? "" : mark(ok)} |`,
    );
  }
}
if (ERAS.includes("2025") && ERAS.includes("2026") && rows.length) {
  // Each peer's 2026 figures against its own 2025 ones: req/s, and server CPU inverted (2025 ÷ 2026), so that
  // above 1 is better for both.
  const era = (peer, mode, connections, metric) => {
    const [old, modern] = ["2025", "2026"].map((e) => find(peer, mode, e, connections)?.[metric]);
    return old === undefined || modern === undefined ? undefined : metric === "rate" ? modern / old : old / modern;
  };
  out.push("", `2026 ÷ 2025 per peer, req/s and server CPU per request (inverted: 2025 ÷ 2026); mcpgen held to ≥ ${ERA_TARGET} as on the stdio rows`);
  out.push(`| mode, connections | mcpgen req/s | mcpgen CPU | echo req/s | echo CPU |`, `| --- | ---: | ---: | ---: | ---: |`);
  for (const mode of ["json", "sse"]) {
    for (const connections of CONNECTIONS) {
      const cell = (peer, metric) => {
        const ratio = era(peer, mode, connections, metric);
        return ratio === undefined ? "" : `${fmt(ratio, 2)}×${peer === "mcpgen" ? ` ${mark(ratio >= ERA_TARGET)}` : ""}`;
      };
      out.push(`| ${mode.toUpperCase()}, ${connections} | ${cell("mcpgen", "rate")} | ${cell("mcpgen", "cpuUs")} | ${cell("echo", "rate")} | ${cell("echo", "cpuUs")} |`);
    }
  }
}
const errors = rows.filter((r) => r.errors > 0);
if (errors.length) out.push("", ...errors.map((r) => `errors: ${r.label} ${r.mode} ${eraName(r)} ×${r.connections}: ${r.errors}`));
if (sessions) {
  const s = sessions;
  /** A `loadInTurns` result with its ratio: the two rates, their spreads, the ratio, failures if any. */
  const inTurns = (r) =>
    `${fmt(r.loaded.rate)} ±${Math.round(r.loaded.spread * 50)}% vs ${fmt(r.alone.rate)} ±${Math.round(r.alone.spread * 50)}% = ${fmt(r.loadRatio, 2)}×${r.failed ? ` (${fmt(r.failed)} requests FAILED)` : ""}`;
  out.push("");
  out.push(`${fmt(s.count)} sessions, each initialized and holding its standalone GET stream (opened in ${fmt(s.openMs / 1000, 1)} s; server idle option ${s.idleMs} ms)`);
  out.push(`| | figure | target | |`);
  out.push(`| --- | ---: | --- | --- |`);
  out.push(`| server RSS with the sessions open | ${fmt(s.rssHeldMiB)} MiB (${fmt(s.rssBeforeMiB)} before; peak ${fmt(s.peakRssMiB)}) | ≤ ${RSS_LIMIT_MIB} MiB | ${mark(s.peakRssMiB <= RSS_LIMIT_MIB)} |`);
  out.push(`| per idle session: RSS / heap after a full GC | ${fmt(s.rssPerSessionB)} B / ${fmt(s.heapPerSessionB)} B | | |`);
  out.push(
    `| 32 connections on another session, req/s (vs a server without sessions, in turns; ${PLAN.rounds * 2} rounds each) | ${inTurns(s)} | ≥ 0.9× | ${mark(s.loadRatio >= 0.9 && !s.failed)} |`,
  );
  out.push(`|   server CPU µs/req | ${fmt(s.loaded.cpuUs, 1)} vs ${fmt(s.alone.cpuUs, 1)} | | |`);
  if (s.limit) {
    out.push(`| the limit: echo with as many GET streams open vs none, req/s (in turns) | ${inTurns(s.limit)} | | |`);
    out.push(`|   server CPU µs/req | ${fmt(s.limit.loaded.cpuUs, 1)} vs ${fmt(s.limit.alone.cpuUs, 1)} | | |`);
  }
  out.push(`| sessions expired after the streams closed | ${s.expired ? `yes, ${fmt(s.expiryMs / 1000, 1)} s later` : "NO"} | expire | ${mark(s.expired)} |`);
  out.push(`| heap after expiry (full GC) | ${fmt(s.heapAfterMiB, 1)} MiB (${fmt(s.heapBeforeMiB, 1)} before, ${fmt(s.heapHeldMiB, 1)} held): ${fmt(s.heapReturned * 100, 1)}% came back | ≥ 90% back | ${mark(s.heapReturned >= 0.9)} |`);
  if (s.perSession) out.push(`| heap per session by kind (snapshots) | ${s.perSession.slice(0, 8).map((g) => `${g.name} ${fmt(g.bytes)} B (${fmt(g.count, 1)})`).join("; ")} | | |`);
  out.push(`| RSS after expiry | ${fmt(s.rssAfterMiB)} MiB (${fmt(s.rssHeldMiB)} held) | | |`);
}
if (flat.length) {
  out.push("");
  out.push(`Sustained SSE load (32 connections, ${PLAN.sustainedMs / 1000} s; RSS sampled every ${PLAN.sampleMs} ms, after the first quarter; heap after a full GC)`);
  for (const r of flat) {
    out.push(
      `  ${r.label}: ${fmt(r.rate)} req/s; RSS ${fmt(r.firstMiB, 1)} → ${fmt(r.lastMiB, 1)} MiB (max ${fmt(r.maxMiB, 1)}, growth ${fmt(r.growthMiB, 1)} MiB) ${mark(Math.abs(r.growthMiB) <= 5)} (flat: ≤ 5 MiB); heap after a full GC ${fmt(r.heapStartMiB, 1)} → ${fmt(r.heapEndMiB, 1)} MiB`,
    );
    if (r.where) out.push(`    from → to, MiB: ${Object.entries(r.where).map(([k, [a, b]]) => `${k.replace(/MiB$/, "")} ${a} → ${b}`).join(", ")}`);
  }
}
for (const prof of profiles) {
  const row = (o) => `    ${String(o.ms).padStart(6)} ms ${String(Math.round((o.ms / prof.busyMs) * 1000) / 10).padStart(5)}%  ${o.name}`;
  out.push("", `CPU profile of mcpgen, ${prof.mode.toUpperCase()} responses, 32 connections (${fmt(prof.rate)} req/s under the profiler): ${prof.busyMs} ms on CPU of ${prof.totalMs} ms sampled`);
  out.push("  self time by owner:", ...prof.byOwner.map(row));
  out.push("  hottest functions (self):", ...prof.selfTop.map(row));
  out.push("  mcpgen functions (inclusive):", ...prof.inclusiveMcpgen.map(row));
}
out.push("", `(node bench/http/run.mjs${args.length ? ` ${args.join(" ")}` : ""}; whole run ${fmt((performance.now() - started) / 1000, 1)} s)`);
process.stdout.write(`${out.join("\n")}\n`);
process.exit(0);
