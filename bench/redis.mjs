/**
 * Redis round trips per `tools/call`: one `--http --redis` instance of the cluster fixture (built by the test
 * suite's global setup into .tmp/runtime-fixtures), a throwaway redis-server, `INFO commandstats` read before
 * and after N calls of a tool that touches no shared state — on a 2025-era session and stateless (2026-07-28).
 * A benchmark, not a test: prints the figures and exits 0.
 *
 *   npm run bench:redis [-- --calls 500]
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SERVER = path.join(ROOT, ".tmp/runtime-fixtures/cluster/build/generated/server.gen.js");
const at = process.argv.indexOf("--calls");
const CALLS = at > 0 ? Number(process.argv[at + 1]) : 500;

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

const server = spawn(process.execPath, [SERVER, "--http", "--port", "0", "--redis", redisUrl], { stdio: ["ignore", "ignore", "pipe"] });
const url = await new Promise((resolve, reject) => {
  let text = "";
  const timer = setTimeout(() => reject(new Error(`the server did not start: ${text}`)), 10_000);
  server.stderr.on("data", (chunk) => {
    text += chunk;
    const found = /listening on (\S+)/.exec(text);
    if (found) (clearTimeout(timer), resolve(found[1]));
  });
});

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

server.kill("SIGTERM");
await new Promise((resolve) => server.once("exit", resolve));
await stats.close();
redis.kill("SIGTERM");
