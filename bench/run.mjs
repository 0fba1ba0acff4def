/**
 * `npm run bench`: mcpgen's example server against its peers over stdio, side by side in one run. A benchmark,
 * not a test: it prints figures (and which targets they meet) and exits 0 whatever they are.
 *
 * Peers, each a separate Node process driven by the same raw newline-JSON client (bench/stdio/driver.mjs):
 *   mcpgen   the repository's example (schemas/ + src/handlers/), built with mcpgen and compiled with tsc
 *   SDK v1   @modelcontextprotocol/sdk `McpServer` + `StdioServerTransport`, an equivalent `add` (zod schemas)
 *   SDK v2   @modelcontextprotocol/server `McpServer` + `StdioServerTransport`, the same tool definitions
 *   echo     a bare newline-JSON process with canned answers: the physical limit of this pipe and this client
 * For the 100-tool cases every peer serves the same 100 tools (bench/lib/fixtures.mjs, all listed): mcpgen
 * its build of the fixture, the SDKs the same wire schemas turned into zod, echo the precomputed list.
 *
 * Every round starts fresh processes for every peer (in a rotated order) and keeps them all alive:
 *   add servers  spawn, initialize, one call, idle RSS; warm-up; sequential `tools/call add` (1 in flight)
 *                and pipelined (64 in flight) in slices, the peers taking turns; peak RSS (VmHWM); stdin closed
 *   100 tools    cold starts (spawn → `initialize` and `tools/list` answered; one process at a time), then
 *                sequential `tools/list` on each peer's last process, in slices taking turns
 * Server CPU is read from /proc (all threads) around each slice; the figures are medians over rounds.
 *
 *   node bench/run.mjs [--quick] [--rounds N] [--peers mcpgen,sdk-v1,sdk-v2,echo] [--json] [--keep]
 *                      [--profile]   (after the rounds: a CPU profile of mcpgen's add server, one more round alone)
 *                      [--v2-json-schema]   (SDK v2's 100 tools get raw JSON Schema via its fromJsonSchema, not zod)
 * Expects a compiled dist/ (`npm run bench` runs `npm run build` first).
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { summarize } from "./lib/cpuprofile.mjs";
import { memory } from "./lib/proc.mjs";
import { median, quantileSorted, spread } from "./lib/stats.mjs";
import { addCall, closedLoop, listCall, spawnPeer } from "./stdio/driver.mjs";
import { setUp } from "./stdio/setup.mjs";

const REPO = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const SERVERS = path.join(REPO, "bench", "stdio", "servers");
const DEPTH = 64;

/**
 * Per round and peer. The measured phases are cut into `slices` and the peers take turns slice by slice (all
 * their processes alive, idle while another is measured), so a change in the machine's state — on a shared
 * 2-core VM, whether a pipe round trip finds the other core awake is worth ~3× in sequential latency — hits
 * every peer alike.
 */
const PLANS = {
  full: { rounds: 5, slices: 4, idleSettleMs: 100, warmMs: 400, seqMs: 1000, pipeMs: 1500, coldRuns: 3, listWarmMs: 300, listMs: 1000 },
  quick: { rounds: 2, slices: 3, idleSettleMs: 50, warmMs: 150, seqMs: 300, pipeMs: 450, coldRuns: 2, listWarmMs: 100, listMs: 300 },
};

/** Targets from the issue, for mcpgen; `sdk` is the better official SDK on that metric. */
const TARGETS = {
  pipeRate: { text: "≥ 2× SDK and ≥ 0.6× echo", ok: (m, sdk, echo) => m >= 2 * sdk && m >= 0.6 * echo },
  pipeCpuUs: { text: "≤ 6 µs", ok: (m) => m <= 6 },
  seqP50Us: { text: "≤ 1.1× echo", ok: (m, sdk, echo) => m <= 1.1 * echo },
  coldMs: { text: "≤ 100 ms", ok: (m) => m <= 100 },
  listRate: { text: "≥ 0.8× echo", ok: (m, sdk, echo) => m >= 0.8 * echo },
  peakRssMiB: { text: "≤ 75 MiB", ok: (m) => m <= 75 },
};

/** Row order, label, unit formatting, and whether more is better. */
const METRICS = [
  ["pipeRate", "pipelined add (64 in flight), calls/s", "rate", true],
  ["pipeCpuUs", "  server CPU per call, µs", "us", false],
  ["pipeP50Us", "  latency p50, µs", "int", false],
  ["pipeP99Us", "  latency p99, µs", "int", false],
  ["seqRate", "sequential add (1 in flight), calls/s", "rate", true],
  ["seqP50Us", "  latency p50, µs", "int", false],
  ["seqP99Us", "  latency p99, µs", "int", false],
  ["seqCpuUs", "  server CPU per call, µs", "us", false],
  ["coldMs", "cold start, 100 tools (spawn → initialize + tools/list), ms", "ms", false],
  ["listRate", "tools/list, 100 tools (sequential), per s", "rate", true],
  ["listCpuUs", "  server CPU per tools/list, µs", "int", false],
  ["idleRssMiB", "idle RSS (after initialize + 1 call), MiB", "mib", false],
  ["peakRssMiB", "peak RSS under load (VmHWM), MiB", "mib", false],
];

const args = parseArgs(process.argv.slice(2));
const plan = { ...PLANS[args.quick ? "quick" : "full"], ...(args.rounds && { rounds: args.rounds }) };
const log = (line) => process.stderr.write(`bench: ${line}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  const started = performance.now();
  const loadStart = os.loadavg().map((x) => Math.round(x * 100) / 100);
  const root = mkdtempSync(path.join(os.tmpdir(), "mcpgen-bench-stdio-"));
  try {
    const built = await setUp(REPO, root, { log });
    const setupMs = performance.now() - started;
    const peers = definePeers(built).filter((p) => args.peers.includes(p.key));
    const rounds = [];
    for (let r = 0; r < plan.rounds; r++) {
      const order = [...peers.slice(r % peers.length), ...peers.slice(0, r % peers.length)];
      log(`round ${r + 1}/${plan.rounds}: add servers`);
      const round = await benchAdd(order, root);
      log(`round ${r + 1}/${plan.rounds}: 100-tool servers`);
      const hundred = await bench100(order, root, built.tools100.tools);
      for (const peer of peers) Object.assign(round[peer.key], hundred[peer.key]);
      rounds.push(round);
    }
    const results = {
      node: process.version,
      machine: machine(),
      loadAverage: { start: loadStart, end: os.loadavg().map((x) => Math.round(x * 100) / 100) },
      command: `node bench/run.mjs${process.argv.slice(2).length ? " " + process.argv.slice(2).join(" ") : ""}`,
      plan: { ...plan, depth: DEPTH },
      fixture: { tools: built.tools100.tools, listBytes: built.tools100.listBytes, ...built.tools100.fixture },
      peers: peers.map(({ key, label, description }) => ({ key, label, description })),
      summary: summarizeRounds(peers, rounds),
      rounds,
      profile: args.profile ? await profileMcpgen(peers.find((p) => p.key === "mcpgen"), root) : undefined,
      setupMs: Math.round(setupMs),
      benchMs: 0,
    };
    results.benchMs = Math.round(performance.now() - started);
    process.stdout.write(args.json ? JSON.stringify(results, null, 2) + "\n" : report(results));
  } finally {
    if (args.keep) log(`kept ${root}`);
    else rmSync(root, { recursive: true, force: true });
  }
}

function definePeers(built) {
  const node = (file, ...rest) => ({ command: process.execPath, args: [file, ...rest] });
  const tools = built.tools100.toolsJson;
  return [
    { key: "mcpgen", label: "mcpgen", description: "generated server (mcpgen/runtime)", add: node(built.example.entry), tools100: node(built.tools100.entry) },
    {
      key: "sdk-v1",
      label: "SDK v1",
      description: "@modelcontextprotocol/sdk McpServer",
      add: node(path.join(SERVERS, "sdk-v1.mjs")),
      tools100: node(path.join(SERVERS, "sdk-v1.mjs"), "--tools", tools),
    },
    {
      key: "sdk-v2",
      label: "SDK v2",
      description: "@modelcontextprotocol/server McpServer",
      add: node(path.join(SERVERS, "sdk-v2.mjs")),
      tools100: node(path.join(SERVERS, "sdk-v2.mjs"), "--tools", tools, ...(args.v2JsonSchema ? ["--json-schema"] : [])),
    },
    {
      key: "echo",
      label: "echo",
      description: "bare newline-JSON echo (the limit)",
      add: node(path.join(SERVERS, "echo.mjs")),
      tools100: node(path.join(SERVERS, "echo.mjs"), "--tools", tools),
    },
  ];
}

/**
 * The `add` phases, on one fresh process per peer: spawn, initialize, one call, idle RSS; warm-up; then
 * sequential and pipelined slices, the peers taking turns; peak RSS; stdin closed.
 */
async function benchAdd(order, root, { nodeArgs = [] } = {}) {
  const procs = [];
  try {
    for (const peer of order) {
      const p = spawnPeer({ ...peer.add, args: [...nodeArgs, ...peer.add.args], cwd: root });
      procs.push(p);
      await p.handshake();
      await closedLoop(p, { depth: 1, durationMs: 0, maxCalls: 1, ...addCall });
    }
    await sleep(plan.idleSettleMs);
    const idle = procs.map((p) => memory(p.pid));
    for (const p of procs) await closedLoop(p, { depth: DEPTH, durationMs: plan.warmMs, ...addCall });
    const seq = procs.map(() => []);
    const pipe = procs.map(() => []);
    for (let s = 0; s < plan.slices; s++) {
      const turn = s % 2 ? [...procs.keys()].reverse() : [...procs.keys()];
      for (const i of turn) seq[i].push(await closedLoop(procs[i], { depth: 1, durationMs: plan.seqMs / plan.slices, ...addCall }));
      for (const i of turn) pipe[i].push(await closedLoop(procs[i], { depth: DEPTH, durationMs: plan.pipeMs / plan.slices, ...addCall }));
    }
    const result = {};
    order.forEach((peer, i) => {
      const sq = phase(seq[i]);
      const pp = phase(pipe[i]);
      result[peer.key] = {
        seqRate: sq.rate,
        seqP50Us: sq.p50Us,
        seqP99Us: sq.p99Us,
        seqCpuUs: sq.cpuUs,
        seqCalls: sq.calls,
        pipeRate: pp.rate,
        pipeP50Us: pp.p50Us,
        pipeP99Us: pp.p99Us,
        pipeCpuUs: pp.cpuUs,
        pipeCalls: pp.calls,
        idleRssMiB: idle[i].rssKiB / 1024,
        peakRssMiB: memory(procs[i].pid).peakRssKiB / 1024,
      };
    });
    return result;
  } finally {
    await Promise.all(procs.map((p) => p.close()));
  }
}

/**
 * The 100-tool servers: cold starts (spawn → `initialize` and `tools/list` answered, one peer at a time),
 * then the sequential `tools/list` rate on each peer's last process, in slices taking turns.
 */
async function bench100(order, root, tools) {
  const colds = order.map(() => []);
  const procs = [];
  try {
    for (let k = 0; k < plan.coldRuns; k++) {
      for (const [i, peer] of order.entries()) {
        const p = spawnPeer({ ...peer.tools100, cwd: root });
        await p.handshake();
        const list = await p.request("tools/list", {});
        colds[i].push(performance.now() - p.startedAt);
        if (list.tools?.length !== tools) throw new Error(`${peer.label} listed ${list.tools?.length} tools, expected ${tools}`);
        if (k < plan.coldRuns - 1) await p.close();
        else procs.push(p);
      }
    }
    const check = listCall(tools);
    for (const p of procs) await closedLoop(p, { depth: 1, durationMs: plan.listWarmMs, ...check });
    const lists = procs.map(() => []);
    for (let s = 0; s < plan.slices; s++) {
      const turn = s % 2 ? [...procs.keys()].reverse() : [...procs.keys()];
      for (const i of turn) lists[i].push(await closedLoop(procs[i], { depth: 1, durationMs: plan.listMs / plan.slices, ...check }));
    }
    const result = {};
    order.forEach((peer, i) => {
      const list = phase(lists[i]);
      result[peer.key] = {
        coldMs: median(colds[i]),
        coldRunsMs: colds[i].map(round1),
        listRate: list.rate,
        listCpuUs: list.cpuUs,
        listP50Us: list.p50Us,
        listCalls: list.calls,
      };
    });
    return result;
  } finally {
    await Promise.all(procs.map((p) => p.close()));
  }
}

/** Slices of one phase taken together: calls over time, CPU per call, latency quantiles of every call. */
function phase(slices) {
  let calls = 0;
  let ms = 0;
  let cpuNs = 0;
  const all = new Float64Array(slices.reduce((n, s) => n + s.latencies.length, 0));
  let at = 0;
  for (const s of slices) {
    calls += s.calls;
    ms += s.ms;
    cpuNs += s.cpuNs;
    all.set(s.latencies, at);
    at += s.latencies.length;
  }
  all.sort();
  return {
    calls,
    rate: (calls / ms) * 1000,
    cpuUs: cpuNs / 1000 / calls,
    p50Us: quantileSorted(all, 0.5) * 1000,
    p99Us: quantileSorted(all, 0.99) * 1000,
  };
}

/** Medians over rounds, the spread between rounds, ratios, target verdicts. */
function summarizeRounds(peers, rounds) {
  const summary = {};
  for (const [metric, , , higherIsBetter] of METRICS) {
    const row = { values: {}, spread: {} };
    for (const peer of peers) {
      const values = rounds.map((r) => r[peer.key][metric]);
      row.values[peer.key] = median(values);
      row.spread[peer.key] = round3(spread(values));
    }
    const sdks = ["sdk-v1", "sdk-v2"].filter((k) => k in row.values).map((k) => row.values[k]);
    const sdkBest = sdks.length ? (higherIsBetter ? Math.max(...sdks) : Math.min(...sdks)) : undefined;
    const m = row.values.mcpgen;
    const echo = row.values.echo;
    row.sdkBest = sdkBest;
    if (m !== undefined && sdkBest !== undefined) row.vsSdk = m / sdkBest;
    if (m !== undefined && echo !== undefined) row.vsEcho = m / echo;
    const target = TARGETS[metric];
    if (target && m !== undefined) {
      const needsPeers = target.ok.length > 1;
      row.target = target.text;
      row.met = needsPeers && (sdkBest === undefined || echo === undefined) ? undefined : target.ok(m, sdkBest, echo);
    }
    summary[metric] = row;
  }
  return summary;
}

/** --profile: one more round of mcpgen's add server alone, under --cpu-prof, summarised. */
async function profileMcpgen(peer, root) {
  if (!peer) return undefined;
  log("profile: mcpgen add server under --cpu-prof");
  const dir = path.join(root, "cpu-profile");
  const result = await benchAdd([peer], root, { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`] });
  const [file] = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"));
  return { pipeRateUnderProfiler: Math.round(result[peer.key].pipeRate), ...summarize(path.join(dir, file), { top: 20, noFile: "(natives: V8 builtins, syscalls)" }) };
}

// ---------------------------------------------------------------------------------------------------------
// The readable report: a Markdown table (pasted as is into BENCHMARKS.md).

function report(r) {
  const lines = [];
  const p = (...l) => lines.push(...l);
  const pl = r.plan;
  p(`mcpgen stdio benchmark: node ${r.node}, ${r.machine}; load average ${r.loadAverage.start[0]} at start, ${r.loadAverage.end[0]} at end`);
  p(
    `${pl.rounds} rounds, medians; per round and peer: warm-up ${pl.warmMs} ms, sequential ${pl.seqMs} ms, pipelined (${pl.depth} in flight) ${pl.pipeMs} ms, ` +
      `${pl.coldRuns} cold starts, tools/list ${pl.listMs} ms, each phase in ${pl.slices} slices with the peers taking turns; ` +
      `100-tool list = ${Math.round(r.fixture.listBytes / 1024)} KiB of JSON`,
  );
  p("");
  const keys = r.peers.map((x) => x.key);
  const head = ["", ...r.peers.map((x) => x.label), "mcpgen ÷ best SDK", "mcpgen ÷ echo", "target (mcpgen)", ""];
  const rows = METRICS.map(([metric, label, unit]) => {
    const s = r.summary[metric];
    return [
      label,
      ...keys.map((k) => fmt(s.values[k], unit)),
      s.vsSdk === undefined ? "" : `${s.vsSdk.toFixed(2)}×`,
      s.vsEcho === undefined ? "" : `${s.vsEcho.toFixed(2)}×`,
      s.target ?? "",
      s.met === undefined ? "" : s.met ? "met" : "MISSED",
    ];
  });
  p(markdownTable(head, rows));
  p("");
  const noisy = METRICS.flatMap(([metric, label]) =>
    keys.filter((k) => r.summary[metric].spread[k] > 0.25).map((k) => `${label.trim()} / ${k}: rounds ${Math.round(r.summary[metric].spread[k] * 100)}% apart`),
  );
  if (noisy.length) p("Noisy (max − min over rounds > 25% of the median):", ...noisy.map((n) => `  ${n}`), "");
  if (r.profile) {
    p(`CPU profile of mcpgen's server, pipelined add (${r.profile.pipeRateUnderProfiler} calls/s under the profiler, ${r.profile.totalMs} ms sampled):`);
    p("  self time by owner:", ...r.profile.byOwner.map((o) => `    ${String(o.ms).padStart(6)} ms  ${o.name}`));
    p("  hottest functions (self):", ...r.profile.selfTop.map((o) => `    ${String(o.ms).padStart(6)} ms  ${o.name}`));
    p("  mcpgen functions (inclusive):", ...r.profile.inclusiveMcpgen.map((o) => `    ${String(o.ms).padStart(6)} ms  ${o.name}`));
    p("");
  }
  p(`(${r.command}; setup ${(r.setupMs / 1000).toFixed(1)} s, whole run ${(r.benchMs / 1000).toFixed(1)} s)`);
  return lines.join("\n") + "\n";
}

function fmt(x, unit) {
  if (x === undefined || Number.isNaN(x)) return "";
  if (unit === "rate") return Math.round(x).toLocaleString("en-US");
  if (unit === "us") return x.toFixed(1);
  if (unit === "ms") return x.toFixed(0);
  if (unit === "mib") return x.toFixed(0);
  return Math.round(x).toLocaleString("en-US");
}

function markdownTable(head, rows) {
  const cells = [head, ...rows];
  const widths = head.map((_, i) => Math.max(3, ...cells.map((row) => row[i].length)));
  const line = (row) => `| ${row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`;
  return [line(head), rule, ...rows.map(line)].join("\n");
}

function machine() {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model.trim() ?? "unknown"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}`;
}

const round1 = (x) => Math.round(x * 10) / 10;
const round3 = (x) => Math.round(x * 1000) / 1000;

function parseArgs(argv) {
  const opts = { quick: false, rounds: undefined, peers: ["mcpgen", "sdk-v1", "sdk-v2", "echo"], json: false, keep: false, profile: false, v2JsonSchema: false };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const value = () => inline ?? argv[++i];
    if (flag === "--quick") opts.quick = true;
    else if (flag === "--rounds") opts.rounds = Number(value());
    else if (flag === "--peers") opts.peers = value().split(",");
    else if (flag === "--json") opts.json = true;
    else if (flag === "--keep") opts.keep = true;
    else if (flag === "--profile") opts.profile = true;
    else if (flag === "--v2-json-schema") opts.v2JsonSchema = true;
    else {
      process.stderr.write("usage: node bench/run.mjs [--quick] [--rounds N] [--peers mcpgen,sdk-v1,sdk-v2,echo] [--json] [--keep] [--profile] [--v2-json-schema]\n");
      process.exit(2);
    }
  }
  if (opts.rounds !== undefined && !(Number.isInteger(opts.rounds) && opts.rounds >= 1)) {
    process.stderr.write("bench: --rounds takes a positive integer\n");
    process.exit(2);
  }
  const known = ["mcpgen", "sdk-v1", "sdk-v2", "echo"];
  const unknown = opts.peers.filter((p) => !known.includes(p));
  if (unknown.length) {
    process.stderr.write(`bench: unknown peer ${unknown.join(", ")} (known: ${known.join(", ")})\n`);
    process.exit(2);
  }
  return opts;
}

await main();
