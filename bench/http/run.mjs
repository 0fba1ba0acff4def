/**
 * The HTTP section of the benchmarks: `tools/call add` over Streamable HTTP (2025 era, one session) against
 * mcpgen, the official SDK v1 and v2 HTTP servers and a bare `node:http` JSON echo, all on 127.0.0.1, each in
 * its own Node process, driven by the same raw-socket load generator (bench/http/load.mjs).
 *
 *   rate / latency / CPU   JSON and SSE response modes (the echo has JSON only), 1 and 32 connections:
 *                          requests per second, p50 / p99 latency, server CPU per request (from /proc)
 *   idle sessions          RSS and heap (after a full GC) per idle session, at 10,000 sessions
 *   sustained load         mcpgen's RSS sampled over a long 32-connection run: it must stay flat
 *
 *   node bench/http/run.mjs [--quick] [--peers mcpgen,sdk-v1,sdk-v2,echo] [--json]
 * A benchmark, not a test: it prints figures (and which targets they meet) and exits 0 whatever they are.
 * Expects a compiled dist/ (`npm run build`).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cpuNs, memory } from "../lib/proc.mjs";
import { quantileSorted } from "../lib/stats.mjs";
import { setUp } from "../stdio/setup.mjs";
import { load, postBytes } from "./load.mjs";

const REPO = path.resolve(fileURLToPath(import.meta.url), "../../..");
const SERVERS = path.join(REPO, "bench", "http", "servers");
const args = process.argv.slice(2);
const quick = args.includes("--quick");
const wanted = args.includes("--peers") ? (args[args.indexOf("--peers") + 1] ?? "").split(",").filter(Boolean) : [];
const PLAN = quick
  ? { warmMs: 300, ms: 1000, sessions: 2000, sustainedMs: 5000, sampleMs: 500 }
  : { warmMs: 1000, ms: 4000, sessions: 10_000, sustainedMs: 30_000, sampleMs: 1000 };
const VERSION = "2025-11-25";
const CALL = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "add", arguments: { a: 2, b: 3 } } });
const log = (line) => process.stderr.write(`${line}\n`);

const root = mkdtempSync(path.join(os.tmpdir(), "mcpgen-bench-http-"));
const children = new Set();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

log("building the example server…");
const { example } = await setUp(REPO, root, { log });

const PEERS = [
  { key: "mcpgen", label: "mcpgen", script: "mcpgen.mjs", args: [example.entry], modes: ["json", "sse"] },
  { key: "sdk-v1", label: "SDK v1", script: "sdk-v1.mjs", args: [], modes: ["json", "sse"] },
  { key: "sdk-v2", label: "SDK v2", script: "sdk-v2.mjs", args: [], modes: ["json", "sse"] },
  { key: "echo", label: "node:http echo", script: "echo.mjs", args: [], modes: ["json"] },
].filter((peer) => wanted.length === 0 || wanted.includes(peer.key));

/** Starts a peer; resolves once it printed READY. */
async function startPeer(peer, mode) {
  const child = spawn(process.execPath, ["--expose-gc", path.join(SERVERS, peer.script), ...peer.args, "--mode", mode], {
    cwd: root,
    stdio: ["pipe", "pipe", "inherit"],
  });
  children.add(child);
  child.on("exit", () => children.delete(child));
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
  const readyLine = await Promise.race([next(), new Promise((_, reject) => setTimeout(() => reject(new Error(`${peer.key} did not start`)), 20_000))]);
  const url = readyLine.replace(/^READY /, "");
  return {
    url,
    pid: child.pid,
    async heap() {
      child.stdin.write("gc\n");
      return JSON.parse((await next()).replace(/^MEM /, ""));
    },
    stop() {
      child.stdin.end();
      child.kill("SIGTERM");
    },
  };
}

/** initialize + notifications/initialized; returns the session id (the echo has a fixed one). */
async function openSession(url) {
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const init = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: "bench", version: "1" } } }),
  });
  await init.text();
  const session = init.headers.get("mcp-session-id");
  if (!init.ok || !session) throw new Error(`initialize failed on ${url}: ${init.status}`);
  const done = await fetch(url, { method: "POST", headers: { ...headers, "mcp-session-id": session, "mcp-protocol-version": VERSION }, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
  await done.text();
  return session;
}

async function measure(server, session, connections) {
  const request = postBytes(server.url, CALL, { "mcp-session-id": session, "mcp-protocol-version": VERSION });
  let cpuStart = 0;
  let cpuEnd = 0;
  const result = await load(server.url, request, {
    connections,
    ms: PLAN.ms,
    warmMs: PLAN.warmMs,
    onWindow: (edge) => (edge === "start" ? (cpuStart = cpuNs(server.pid)) : (cpuEnd = cpuNs(server.pid))),
  });
  return {
    rate: (result.requests / result.elapsedMs) * 1000,
    p50Us: quantileSorted(result.latenciesUs, 0.5),
    p99Us: quantileSorted(result.latenciesUs, 0.99),
    cpuUs: result.requests > 0 ? (cpuEnd - cpuStart) / 1000 / result.requests : NaN,
    errors: result.errors,
  };
}

const rows = [];
for (const peer of PEERS) {
  for (const mode of peer.modes) {
    const server = await startPeer(peer, mode);
    try {
      const session = peer.key === "echo" ? "echo" : await openSession(server.url);
      for (const connections of [1, 32]) {
        log(`${peer.label} ${mode} ×${connections}…`);
        rows.push({ peer: peer.key, label: peer.label, mode, connections, ...(await measure(server, session, connections)) });
      }
    } finally {
      server.stop();
    }
  }
}

/** Memory per idle session: `count` sessions opened (32 at a time) and left idle. */
async function idleSessions(peer, count) {
  const server = await startPeer(peer, "json");
  try {
    await openSession(server.url); // warm: code loaded, first allocations made
    const before = await server.heap();
    const rssBefore = memory(server.pid).rssKiB;
    for (let opened = 0; opened < count; opened += 32) {
      await Promise.all(Array.from({ length: Math.min(32, count - opened) }, () => openSession(server.url)));
    }
    const after = await server.heap();
    const rssAfter = memory(server.pid).rssKiB;
    return { peer: peer.key, label: peer.label, count, heapPerSessionB: (after.heapUsed - before.heapUsed) / count, rssPerSessionB: ((rssAfter - rssBefore) * 1024) / count };
  } finally {
    server.stop();
  }
}

const idle = [];
for (const peer of PEERS.filter((p) => p.key !== "echo")) {
  log(`${peer.label}: ${PLAN.sessions} idle sessions…`);
  idle.push(await idleSessions(peer, PLAN.sessions));
}

/** RSS over a sustained 32-connection JSON run. */
async function sustained(peer) {
  const server = await startPeer(peer, "json");
  try {
    const session = peer.key === "echo" ? "echo" : await openSession(server.url);
    const samples = [];
    const timer = setInterval(() => samples.push(memory(server.pid).rssKiB / 1024), PLAN.sampleMs);
    const request = postBytes(server.url, CALL, { "mcp-session-id": session, "mcp-protocol-version": VERSION });
    const result = await load(server.url, request, { connections: 32, ms: PLAN.sustainedMs });
    clearInterval(timer);
    const settled = samples.slice(Math.floor(samples.length / 4)); // after warm-up
    return {
      peer: peer.key,
      label: peer.label,
      requests: result.requests,
      firstMiB: settled[0],
      lastMiB: settled.at(-1),
      maxMiB: Math.max(...settled),
      growthMiB: settled.at(-1) - settled[0],
    };
  } finally {
    server.stop();
  }
}

const flat = [];
for (const peer of PEERS.filter((p) => p.key === "mcpgen")) {
  log(`${peer.label}: sustained load for ${PLAN.sustainedMs / 1000} s…`);
  flat.push(await sustained(peer));
}

// ── report ──
const find = (peer, mode, connections) => rows.find((r) => r.peer === peer && r.mode === mode && r.connections === connections);
const fmt = (value, digits = 0) => (Number.isFinite(value) ? value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits }) : "–");
if (args.includes("--json")) {
  process.stdout.write(`${JSON.stringify({ rows, idle, flat }, null, 2)}\n`);
} else {
  const out = [];
  out.push("HTTP: tools/call add, one 2025-11-25 session, 127.0.0.1");
  out.push("| peer | mode | conns | req/s | p50 µs | p99 µs | server CPU µs/req | errors |");
  out.push("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const r of rows) out.push(`| ${r.label} | ${r.mode} | ${r.connections} | ${fmt(r.rate)} | ${fmt(r.p50Us)} | ${fmt(r.p99Us)} | ${fmt(r.cpuUs, 1)} | ${r.errors} |`);
  out.push("");
  out.push(`Idle sessions (${PLAN.sessions.toLocaleString("en-US")} opened, after a full GC)`);
  out.push("| peer | heap per session | RSS per session |");
  out.push("| --- | ---: | ---: |");
  for (const r of idle) out.push(`| ${r.label} | ${fmt(r.heapPerSessionB / 1024, 2)} KiB | ${fmt(r.rssPerSessionB / 1024, 2)} KiB |`);
  out.push("");
  out.push(`Sustained load (32 connections, ${PLAN.sustainedMs / 1000} s, RSS after the first quarter)`);
  for (const r of flat) out.push(`${r.label}: ${fmt(r.requests)} requests; RSS ${fmt(r.firstMiB, 1)} → ${fmt(r.lastMiB, 1)} MiB (max ${fmt(r.maxMiB, 1)}, growth ${fmt(r.growthMiB, 1)} MiB)`);
  const m = find("mcpgen", "json", 32);
  const sdk = Math.max(find("sdk-v1", "json", 32)?.rate ?? 0, find("sdk-v2", "json", 32)?.rate ?? 0);
  const echo = find("echo", "json", 32);
  if (m) {
    out.push("");
    out.push("Targets (32 connections, one session, JSON):");
    if (sdk > 0) out.push(`  mcpgen ≥ 3× best SDK: ${fmt(m.rate)} vs ${fmt(sdk)} req/s → ${fmt(m.rate / sdk, 2)}× ${m.rate >= 3 * sdk ? "MET" : "missed"}`);
    if (echo) out.push(`  mcpgen ≥ 0.5× bare node:http: ${fmt(m.rate)} vs ${fmt(echo.rate)} req/s → ${fmt(m.rate / echo.rate, 2)}× ${m.rate >= 0.5 * echo.rate ? "MET" : "missed"}`);
    out.push(`  server CPU ≤ 45 µs per request: ${fmt(m.cpuUs, 1)} µs ${m.cpuUs <= 45 ? "MET" : "missed"}`);
    for (const r of flat) out.push(`  RSS flat under sustained load: growth ${fmt(r.growthMiB, 1)} MiB ${Math.abs(r.growthMiB) <= 5 ? "MET" : "check"}`);
  }
  process.stdout.write(`${out.join("\n")}\n`);
}
process.exit(0);
