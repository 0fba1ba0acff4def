/**
 * Many instances on one Redis, with the cluster fixture (built by the test suite's global setup into
 * .tmp/runtime-fixtures) and a throwaway redis-server:
 * - Redis round trips per `tools/call`: `INFO commandstats` read before and after N calls of a tool that
 *   touches no shared state, on one `--http --redis` instance — on a 2025-era session and stateless (2026-07-28);
 * - HTTP throughput of 1 vs 3 instances under the same load: 32 keep-alive connections calling that tool,
 *   all on one instance, then spread over three (the client switching URLs, as behind a balancer); the
 *   two alternate `--rounds` times and the medians are compared. A 2025-era session opened on the first
 *   instance is served by all three.
 * A benchmark, not a test: prints the figures and exits 0.
 *
 *   npm run bench:redis [-- --calls 500 --seconds 5 --rounds 3]
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { load, postBytes } from "./http/load.mjs";
import { median } from "./lib/stats.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SERVER = path.join(ROOT, ".tmp/runtime-fixtures/cluster/build/generated/server.gen.js");
const option = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const CALLS = option("--calls", 500);
const SECONDS = option("--seconds", 5);
const ROUNDS = option("--rounds", 3);
const CONNECTIONS = 32;

if (!existsSync(SERVER)) {
  console.error(`${SERVER} is missing: run the test suite once (npm test) to build the fixtures`);
  process.exit(1);
}

const port = await new Promise((resolve) => {
  const probe = net.createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});
const redis = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
const redisUrl = `redis://127.0.0.1:${port}`;
const { createClient } = await import("@redis/client");
const stats = createClient({ url: redisUrl, socket: { reconnectStrategy: (retries) => (retries > 50 ? new Error("redis-server did not start") : 50) } });
stats.on("error", () => undefined);
await stats.connect();

/** Starts one `--http --redis` instance; resolves to its process and MCP endpoint. */
async function instance() {
  const child = spawn(process.execPath, [SERVER, "--http", "--port", "0", "--redis", redisUrl], { stdio: ["ignore", "ignore", "pipe"] });
  const url = await new Promise((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${text}`)), 10_000);
    child.stderr.on("data", (chunk) => {
      text += chunk;
      const found = /listening on (\S+)/.exec(text);
      if (found) (clearTimeout(timer), resolve(found[1]));
    });
  });
  return { child, url };
}

const { child: server, url } = await instance();

/** Redis commands executed so far, the stats client's own INFO calls left out. */
async function commands() {
  const info = await stats.info("commandstats");
  let total = 0;
  for (const [, name, calls] of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) if (name !== "info" && name !== "config|resetstat") total += Number(calls);
  return total;
}

async function post(body, headers) {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status !== 200 && response.status !== 202) throw new Error(`HTTP ${response.status}: ${text}`);
  return response;
}

async function measure(call) {
  await call(); // warm
  await stats.configResetStat();
  const before = await commands();
  for (let i = 0; i < CALLS; i++) await call();
  return ((await commands()) - before) / CALLS;
}

const args = { name: "was_aborted", arguments: { label: "bench" } };
const initialized = await post({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } } }, {});
const session = { "mcp-session-id": initialized.headers.get("mcp-session-id"), "mcp-protocol-version": "2025-06-18" };
await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session);
const legacy = await measure(() => post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: args }, session));

const envelope = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} };
const modern = await measure(() =>
  post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { ...args, _meta: envelope } }, { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "was_aborted" }),
);

console.log(`Redis commands per tools/call over ${CALLS} calls (one instance, --redis):`);
console.log(`  2025-era session (2025-06-18):  ${legacy.toFixed(3)}`);
console.log(`  stateless 2026-07-28:           ${modern.toFixed(3)}`);

// ── 1 vs 3 instances ──
const others = [await instance(), await instance()];
const urls = [url, ...others.map((other) => other.url)];

/** Requests per second of CONNECTIONS connections spread over `targets` (a request builder per URL). */
async function throughput(targets, request) {
  const shares = targets.map((_, i) => Math.floor(CONNECTIONS / targets.length) + (i < CONNECTIONS % targets.length ? 1 : 0));
  const runs = await Promise.all(targets.map((target, i) => load(target, request(target), { connections: shares[i], ms: SECONDS * 1000, warmMs: 500 })));
  const errors = runs.reduce((sum, run) => sum + run.errors, 0);
  if (errors > 0) throw new Error(`${errors} requests failed`);
  return runs.reduce((sum, run) => sum + run.requests / (run.elapsedMs / 1000), 0);
}

const bodies = {
  "stateless 2026-07-28": {
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { ...args, _meta: envelope } }),
    headers: { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "was_aborted" },
  },
  "2025-era session (one session, all instances)": { body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: args }), headers: session },
};
console.log(`\nHTTP throughput, ${CONNECTIONS} connections, ${SECONDS} s windows, ${ROUNDS} alternating rounds (medians):`);
for (const [name, { body, headers }] of Object.entries(bodies)) {
  const request = (target) => postBytes(target, body, headers);
  const one = [];
  const three = [];
  for (let round = 0; round < ROUNDS; round++) {
    one.push(await throughput([url], request));
    three.push(await throughput(urls, request));
  }
  const [a, b] = [median(one), median(three)];
  console.log(`  ${name}: 1 instance ${Math.round(a)} req/s, 3 instances ${Math.round(b)} req/s, ratio ${(b / a).toFixed(2)}× (spread: ${one.map(Math.round).join("/")} vs ${three.map(Math.round).join("/")})`);
}

for (const child of [server, ...others.map((other) => other.child)]) {
  child.kill("SIGTERM");
  await new Promise((resolve) => child.once("exit", resolve));
}
await stats.close();
redis.kill("SIGTERM");
