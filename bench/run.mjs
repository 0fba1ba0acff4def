/**
 * `npm run bench`: mcpgen's example server against its peers over stdio, side by side in one run. A benchmark,
 * not a test: it prints figures (and which targets they meet) and exits 0 whatever they are.
 *
 * Peers, each a separate Node process driven by the same raw newline-JSON client (bench/stdio/driver.mjs):
 *   mcpgen   the repository's example (schemas/ + src/handlers/), built with mcpgen and compiled with tsc
 *   SDK v1   @modelcontextprotocol/sdk `McpServer` + `StdioServerTransport`, an equivalent `add` (zod schemas)
 *   SDK v2   @modelcontextprotocol/server `McpServer` + `StdioServerTransport`, the same tool definitions
 *   echo     a bare newline-JSON process answering without validation: the limit of this pipe and this client, which
 *            every mcpgen row is held against (throughput ≥ 0.9×, CPU per call, peak RSS, cold start ≤ 1.1×)
 *   echo-busy  (only when named in --peers) the echo spinning 0.5 µs per request, about the work mcpgen adds
 *            per call: what that much work costs on each row, shown ÷ echo beside mcpgen's ratio
 * For the 100-tool cases every peer serves the same 100 tools (bench/lib/fixtures.mjs, all listed): mcpgen
 * its build of the fixture, the SDKs the same wire schemas turned into zod, echo the precomputed list.
 *
 * Every round starts fresh processes for every peer (in a rotated order) and keeps them all alive:
 *   add servers  spawn, initialize, one call, idle RSS; warm-up; sequential `tools/call add` (1 in flight)
 *                and pipelined (64 in flight) in slices, the peers taking turns; peak RSS (VmHWM); stdin closed.
 *                The same on separate never-initialized processes in the 2026-07-28 era (mcpgen and the echoes):
 *                the envelope in every request's `_meta`, held also against mcpgen's 2025 figures (≥ 0.95×)
 *   one CPU      mcpgen and the echoes with the driver pinned to CPU 0 (taskset): sequential `add` and `search`
 *                (`list_tasks` over ten seeded tasks; the echo filters a copy of mcpgen's task store as the
 *                example's handler does, and its answer must equal mcpgen's)
 *   100 tools    cold starts (spawn → `initialize` and `tools/list` answered; one process at a time; when
 *                NODE_EXTRA_CA_CERTS is set, also without it: lib/node-start.mjs), mcpgen's also as the MCP Bundle
 *                `mcpgen bundle` makes of the same server (held against the echo's, itself one file), with the
 *                minor page faults each took until answered, then sequential `tools/list` on each peer's last
 *                process, in slices taking turns. What a page fault costs the machine is measured at the start
 *                and end of the run (bench/lib/proc.mjs): on a VM it can be 10 µs or more, and a cold start
 *                takes ~3,000 of them
 * Server CPU is read from /proc (all threads) around each slice; the figures are medians over rounds, and
 * each ratio the median of the rounds' own ratios (a round measures its peers in the same minutes). While
 * the add servers and the 100-tool servers' `tools/list` are measured, their main threads run on CPU 0 and
 * the driver's on CPU 1, so that the peers are measured on the same CPU (bench/lib/pin.mjs; `--no-pin` lets
 * the scheduler place them); cold starts are not pinned.
 *
 *   node bench/run.mjs [--quick] [--rounds N] [--peers mcpgen,sdk-v1,sdk-v2,echo,echo-busy] [--json] [--keep] [--no-pin]
 *                      [--profile]   (after the rounds: CPU profiles of mcpgen's 2025 and 2026 add paths and cold start)
 *                      [--gc]        (after the rounds: young-generation collections per pipelined `add` call,
 *                                     every peer with bench/lib/gc-count.mjs preloaded, the peers taking turns)
 *                      [--v2-json-schema]   (SDK v2's 100 tools get raw JSON Schema via its fromJsonSchema, not zod)
 * Expects a compiled dist/ (`npm run bench` runs `npm run build` first).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { summarize } from "./lib/cpuprofile.mjs";
import { BARE_ENV } from "./lib/node-start.mjs";
import { cpuList, pinning } from "./lib/pin.mjs";
import { memory, minorFaults, pageFaultUs } from "./lib/proc.mjs";
import { median, pairedRatio, quantileSorted, spread } from "./lib/stats.mjs";
import { addCall, closedLoop, listCall, modernAddCall, SEARCH, SEARCH_TASKS, searchCall, spawnPeer } from "./stdio/driver.mjs";
import { setUp } from "./stdio/setup.mjs";

const REPO = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const SERVERS = path.join(REPO, "bench", "stdio", "servers");
const GC_COUNT = path.join(REPO, "bench", "lib", "gc-count.mjs");
const DEPTH = 64;

/**
 * Per round and peer. The measured phases are cut into `slices` and the peers take turns slice by slice (all
 * their processes alive, idle while another is measured), so a change in the machine's state — on a shared
 * 2-core VM, whether a pipe round trip finds the other core awake is worth ~3× in sequential latency — hits
 * every peer alike.
 */
const PLANS = {
  full: { rounds: 5, slices: 4, idleSettleMs: 100, warmMs: 400, seqMs: 1000, pipeMs: 1500, coldRuns: 3, listWarmMs: 300, listMs: 1000, pinnedMs: 1000 },
  quick: { rounds: 2, slices: 3, idleSettleMs: 50, warmMs: 150, seqMs: 300, pipeMs: 450, coldRuns: 2, listWarmMs: 100, listMs: 300, pinnedMs: 300 },
};

/**
 * Targets, all against the limit (echo): mcpgen ÷ echo ≥ 0.9 for throughput (`rate`), ≤ 1.1 for a cost
 * (`cost`: server CPU per request, peak RSS, cold start). The 2026-era rows also have mcpgen's 2026 figure
 * against its own 2025 figure on the same row (`era`): ≥ 0.95 (a cost counts inverted: 2025 ÷ 2026).
 */
const TARGETS = {
  rate: { text: "≥ 0.9× echo", ok: (ratio) => ratio >= 0.9 },
  cost: { text: "≤ 1.1× echo", ok: (ratio) => ratio <= 1.1 },
  era: { text: "≥ 0.95× 2025", ok: (ratio) => ratio >= 0.95 },
};

/**
 * Row order: key, label, unit formatting, whether more is better, target kind against echo, and for the
 * 2026-era rows the 2025-era row it is held against.
 */
const METRICS = [
  ["pipeRate", "2025 pipelined add (64 in flight), calls/s", "rate", true, "rate"],
  ["pipeCpuUs", "  server CPU per call, µs", "us", false, "cost"],
  ["pipeP50Us", "  latency p50, µs", "int", false],
  ["pipeP99Us", "  latency p99, µs", "int", false],
  ["seqRate", "2025 sequential add (1 in flight), calls/s", "rate", true, "rate"],
  ["seqP50Us", "  latency p50, µs", "int", false],
  ["seqP99Us", "  latency p99, µs", "int", false],
  ["seqCpuUs", "  server CPU per call, µs", "us", false, "cost"],
  ["pipe26Rate", "2026 pipelined add (_meta envelope), calls/s", "rate", true, "rate", "pipeRate"],
  ["pipe26CpuUs", "  server CPU per call, µs", "us", false, "cost", "pipeCpuUs"],
  ["seq26Rate", "2026 sequential add, calls/s", "rate", true, "rate", "seqRate"],
  ["seq26P50Us", "  latency p50, µs", "int", false, undefined, "seqP50Us"],
  ["seq26CpuUs", "  server CPU per call, µs", "us", false, "cost", "seqCpuUs"],
  ["peak26RssMiB", "  peak RSS (VmHWM), MiB", "mib", false, "cost", "peakRssMiB"],
  ["pinAddRate", "one CPU (taskset): sequential add, calls/s", "rate", true, "rate"],
  ["pinAddP50Us", "  latency p50, µs", "int", false],
  ["pinAddCpuUs", "  server CPU per call, µs", "us", false, "cost"],
  ["pinSearchRate", "one CPU (taskset): sequential search (list_tasks, 10 of 10), calls/s", "rate", true, "rate"],
  ["pinSearchP50Us", "  latency p50, µs", "int", false],
  ["pinSearchCpuUs", "  server CPU per call, µs", "us", false, "cost"],
  ["coldMs", "cold start, 100 tools (spawn → initialize + tools/list), ms", "ms", false, "cost"],
  ["coldBareMs", "  the same, Node started without NODE_EXTRA_CA_CERTS (only when it is set), ms", "ms", false, "cost"],
  ["coldFaults", "  minor page faults until answered (without NODE_EXTRA_CA_CERTS when it is set)", "int", false],
  ["coldMcpbMs", "  the same server as an MCP Bundle (mcpgen bundle; the echo as it is), ms", "ms", false, "cost"],
  ["coldMcpbBareMs", "    and without NODE_EXTRA_CA_CERTS, ms", "ms", false, "cost"],
  ["listRate", "tools/list, 100 tools (sequential), per s", "rate", true, "rate"],
  ["listCpuUs", "  server CPU per tools/list, µs", "int", false, "cost"],
  ["idleRssMiB", "idle RSS (after initialize + 1 call), MiB", "mib", false],
  ["peakRssMiB", "peak RSS under load (VmHWM), MiB", "mib", false, "cost"],
];
/** Peers that speak the 2026-07-28 era (the official SDKs here do not). */
const MODERN_PEERS = ["mcpgen", "echo", "echo-busy"];
/** Peers run on one CPU (the rows against the limit; the SDKs are measured on the rows above). */
const PINNED_PEERS = ["mcpgen", "echo", "echo-busy"];
/**
 * The `echo-busy` peer's work per request: about what mcpgen's own work adds to the echo's per call (its
 * method table, validation and result in process, warm), to show what that much work costs on each row.
 */
const BUSY_NS = 500;
/** A peer's answer to the search, as JSON: the echo's must equal mcpgen's. */
const searchAnswer = async (p) => JSON.stringify(await p.request("tools/call", { name: "list_tasks", arguments: SEARCH }));

const args = parseArgs(process.argv.slice(2));
const plan = { ...PLANS[args.quick ? "quick" : "full"], ...(args.rounds && { rounds: args.rounds }) };
const PIN = args.noPin ? undefined : pinning();
/** Pins the processes measured next (see the header), and this one. */
const pin = (procs) => {
  for (const p of procs) PIN?.server(p.pid);
  PIN?.self();
};
const log = (line) => process.stderr.write(`bench: ${line}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function main() {
  const started = performance.now();
  const loadStart = os.loadavg().map((x) => Math.round(x * 100) / 100);
  const faultStart = round1(pageFaultUs());
  const root = mkdtempSync(path.join(os.tmpdir(), "mcpgen-bench-stdio-"));
  try {
    const built = await setUp(REPO, root, { log });
    // The echo answers `initialize` and 2026-era results with the example's own server info, as mcpgen does.
    const { registry } = await import(pathToFileURL(path.join(path.dirname(built.example.entry), "registry.gen.js")).href);
    built.example.toolsJson = path.join(root, "example-tools.json");
    writeFileSync(built.example.toolsJson, JSON.stringify({ server: registry.server, tools: [] }));
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
      const pinnedPeers = order.filter((p) => PINNED_PEERS.includes(p.key));
      if (pinnedPeers.length) {
        log(`round ${r + 1}/${plan.rounds}: one CPU (taskset)`);
        const pinned = await benchPinned(pinnedPeers, root);
        for (const peer of pinnedPeers) Object.assign(round[peer.key], pinned[peer.key] ?? {});
      }
      rounds.push(round);
    }
    const results = {
      node: process.version,
      machine: machine(),
      loadAverage: { start: loadStart, end: os.loadavg().map((x) => Math.round(x * 100) / 100) },
      pageFaultUs: { start: faultStart, end: round1(pageFaultUs()) },
      command: `node bench/run.mjs${process.argv.slice(2).length ? " " + process.argv.slice(2).join(" ") : ""}`,
      pinned: PIN?.description ?? null,
      plan: { ...plan, depth: DEPTH },
      fixture: { tools: built.tools100.tools, listBytes: built.tools100.listBytes, ...built.tools100.fixture },
      peers: peers.map(({ key, label, description }) => ({ key, label, description })),
      summary: summarizeRounds(peers, rounds),
      rounds,
      profile: args.profile ? await profileMcpgen(peers.find((p) => p.key === "mcpgen"), root) : undefined,
      gc: args.gc ? await benchGc(peers, root) : undefined,
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
    {
      key: "mcpgen",
      label: "mcpgen",
      description: "generated server (mcpgen/runtime)",
      add: node(built.example.entry),
      tools100: node(built.tools100.entry),
      mcpb100: node(built.tools100.mcpbEntry),
    },
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
      add: node(path.join(SERVERS, "echo.mjs"), "--tools", built.example.toolsJson),
      tools100: node(path.join(SERVERS, "echo.mjs"), "--tools", tools),
    },
    {
      key: "echo-busy",
      label: `echo + ${BUSY_NS / 1000} µs`,
      description: `the echo spinning ${BUSY_NS} ns per request`,
      add: node(path.join(SERVERS, "echo.mjs"), "--tools", built.example.toolsJson, "--busy-ns", String(BUSY_NS)),
      tools100: node(path.join(SERVERS, "echo.mjs"), "--tools", tools, "--busy-ns", String(BUSY_NS)),
    },
  ];
}

/**
 * The `add` phases, on one fresh process per peer: spawn, initialize, one call, idle RSS; warm-up; then
 * sequential and pipelined slices, the peers taking turns; peak RSS; stdin closed.
 */
async function benchAdd(order, root, { nodeArgs = [], eras = ["2025", "2026"] } = {}) {
  const procs = [];
  const modern = []; // [order index, process]: 2026-era processes (never initialized), for the peers that speak it
  try {
    for (const peer of order) {
      const p = spawnPeer({ ...peer.add, args: [...nodeArgs, ...peer.add.args], cwd: root });
      procs.push(p);
      await p.handshake();
      await closedLoop(p, { depth: 1, durationMs: 0, maxCalls: 1, ...addCall });
    }
    if (eras.includes("2026")) {
      for (const [i, peer] of order.entries()) {
        if (!MODERN_PEERS.includes(peer.key)) continue;
        const p = spawnPeer({ ...peer.add, args: [...nodeArgs, ...peer.add.args], cwd: root });
        modern.push([i, p]);
        await closedLoop(p, { depth: 1, durationMs: 0, maxCalls: 1, ...modernAddCall });
      }
    }
    pin([...procs, ...modern.map(([, p]) => p)]);
    await sleep(plan.idleSettleMs);
    const idle = procs.map((p) => memory(p.pid));
    const legacy = eras.includes("2025");
    if (legacy) for (const p of procs) await closedLoop(p, { depth: DEPTH, durationMs: plan.warmMs, ...addCall });
    for (const [, p] of modern) await closedLoop(p, { depth: DEPTH, durationMs: plan.warmMs, ...modernAddCall });
    const seq = procs.map(() => []);
    const pipe = procs.map(() => []);
    const seq26 = procs.map(() => []);
    const pipe26 = procs.map(() => []);
    for (let s = 0; s < plan.slices; s++) {
      const turn = s % 2 ? [...procs.keys()].reverse() : [...procs.keys()];
      const turn26 = s % 2 ? [...modern].reverse() : modern;
      if (legacy) for (const i of turn) seq[i].push(await closedLoop(procs[i], { depth: 1, durationMs: plan.seqMs / plan.slices, ...addCall }));
      for (const [i, p] of turn26) seq26[i].push(await closedLoop(p, { depth: 1, durationMs: plan.seqMs / plan.slices, ...modernAddCall }));
      if (legacy) for (const i of turn) pipe[i].push(await closedLoop(procs[i], { depth: DEPTH, durationMs: plan.pipeMs / plan.slices, ...addCall }));
      for (const [i, p] of turn26) pipe26[i].push(await closedLoop(p, { depth: DEPTH, durationMs: plan.pipeMs / plan.slices, ...modernAddCall }));
    }
    const result = {};
    order.forEach((peer, i) => {
      const sq = phase(seq[i]);
      const pp = phase(pipe[i]);
      const m = modern.find(([at]) => at === i)?.[1];
      const sq26 = m ? phase(seq26[i]) : undefined;
      const pp26 = m ? phase(pipe26[i]) : undefined;
      result[peer.key] = {
        ...(m && {
          seq26Rate: sq26.rate,
          seq26P50Us: sq26.p50Us,
          seq26CpuUs: sq26.cpuUs,
          pipe26Rate: pp26.rate,
          pipe26CpuUs: pp26.cpuUs,
          peak26RssMiB: memory(m.pid).peakRssKiB / 1024,
        }),
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
    PIN?.release(); // the next processes start on every CPU
    await Promise.all([...procs, ...modern.map(([, p]) => p)].map((p) => p.close()));
  }
}

/**
 * Sequential `add` and `search` with the driver and the server on one CPU (taskset): no pipe round trip can
 * be hidden by the other core, so every µs either process spends is on the clock. The echo answers the search
 * from a copy of mcpgen's task store (taken here, after seeding it), filtered on every call as the example's
 * handler filters it; its answer is checked against mcpgen's first.
 */
async function benchPinned(order, root) {
  let cpus; // this process's CPU list before, restored after
  try {
    cpus = cpuList(process.pid);
    execFileSync("taskset", ["-a", "-p", "-c", "0", String(process.pid)], { stdio: "ignore" });
  } catch (error) {
    log(`one CPU: skipped (taskset: ${error.message.split("\n")[0]})`);
    return {};
  }
  const procs = [];
  try {
    let tasks;
    let answer;
    // mcpgen first: its task store is what the echo searches, and its answer what the echo's must equal.
    const sorted = [...order].sort((a, b) => (a.key === "mcpgen" ? -1 : b.key === "mcpgen" ? 1 : 0));
    for (const peer of sorted) {
      const args = [...peer.add.args, ...(peer.key.startsWith("echo") && tasks ? ["--tasks", tasks] : [])];
      const p = spawnPeer({ command: "taskset", args: ["-c", "0", peer.add.command, ...args], cwd: root });
      procs.push([peer, p]);
      await p.handshake();
      if (peer.key === "mcpgen") {
        for (let t = 0; t < SEARCH_TASKS; t++) await p.request("tools/call", { name: "create_task", arguments: { title: `task ${t}`, tags: ["bench"] } });
        const all = await p.request("tools/call", { name: "list_tasks", arguments: { limit: 100 } });
        tasks = path.join(root, "tasks.json");
        writeFileSync(tasks, JSON.stringify([...all.structuredContent.tasks].reverse())); // the store's order: oldest first
        answer = await searchAnswer(p);
      } else if (answer !== undefined) {
        const own = await searchAnswer(p);
        if (own !== answer) throw new Error(`${peer.label} answers the search otherwise than mcpgen:\n${own.slice(0, 300)}\n${answer.slice(0, 300)}`);
      }
    }
    for (const [, p] of procs) {
      await closedLoop(p, { depth: 1, durationMs: plan.warmMs / 2, ...addCall });
      await closedLoop(p, { depth: 1, durationMs: plan.warmMs / 2, ...searchCall });
    }
    const add = procs.map(() => []);
    const search = procs.map(() => []);
    for (let s = 0; s < plan.slices; s++) {
      const turn = s % 2 ? [...procs.keys()].reverse() : [...procs.keys()];
      for (const i of turn) add[i].push(await closedLoop(procs[i][1], { depth: 1, durationMs: plan.pinnedMs / plan.slices, ...addCall }));
      for (const i of turn) search[i].push(await closedLoop(procs[i][1], { depth: 1, durationMs: plan.pinnedMs / plan.slices, ...searchCall }));
    }
    const result = {};
    procs.forEach(([peer], i) => {
      const a = phase(add[i]);
      const q = phase(search[i]);
      result[peer.key] = { pinAddRate: a.rate, pinAddP50Us: a.p50Us, pinAddCpuUs: a.cpuUs, pinSearchRate: q.rate, pinSearchP50Us: q.p50Us, pinSearchCpuUs: q.cpuUs };
    });
    return result;
  } finally {
    execFileSync("taskset", ["-a", "-p", "-c", cpus ?? `0-${os.cpus().length - 1}`, String(process.pid)], { stdio: "ignore" });
    await Promise.all(procs.map(([, p]) => p.close()));
  }
}

/**
 * The 100-tool servers: cold starts (spawn → `initialize` and `tools/list` answered, one peer at a time),
 * then the sequential `tools/list` rate on each peer's last process, in slices taking turns.
 */
async function bench100(order, root, tools) {
  const colds = order.map(() => []);
  const coldsBare = order.map(() => []);
  const coldsMcpb = order.map(() => []);
  const coldsMcpbBare = order.map(() => []);
  /** Minor page faults until the list was answered: of the starts without NODE_EXTRA_CA_CERTS when it is set. */
  const coldFaults = order.map(() => []);
  const procs = [];
  try {
    /** One cold start of `peer` from `spec` (in `env`, or this process's): the process, listed, and its time to the list. */
    const start = async (peer, spec, env) => {
      const p = spawnPeer({ ...spec, cwd: root, env });
      await p.handshake();
      const list = await p.request("tools/list", {});
      const ms = performance.now() - p.startedAt;
      if (list.tools?.length !== tools) throw new Error(`${peer.label} listed ${list.tools?.length} tools, expected ${tools}`);
      return { p, ms, faults: minorFaults(p.pid) };
    };
    /** One cold start of `peer` from `spec` that is not kept, its time pushed onto `into` (and its page faults onto `faults`). */
    const once = async (peer, spec, env, into, faults) => {
      const { p, ms, faults: count } = await start(peer, spec, env);
      into.push(ms);
      faults?.push(count);
      await p.close();
    };
    for (let k = 0; k < plan.coldRuns; k++) {
      for (const [i, peer] of order.entries()) {
        if (BARE_ENV) await once(peer, peer.tools100, BARE_ENV, coldsBare[i], coldFaults[i]);
        if (peer.mcpb100) {
          if (BARE_ENV) await once(peer, peer.mcpb100, BARE_ENV, coldsMcpbBare[i]);
          await once(peer, peer.mcpb100, undefined, coldsMcpb[i]);
        }
        const { p, ms, faults } = await start(peer, peer.tools100, undefined);
        colds[i].push(ms);
        if (!BARE_ENV) coldFaults[i].push(faults);
        if (k < plan.coldRuns - 1) await p.close();
        else procs.push(p);
      }
    }
    const check = listCall(tools);
    pin(procs);
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
        coldBareMs: BARE_ENV ? median(coldsBare[i]) : undefined,
        coldFaults: median(coldFaults[i]),
        // The echo is one file as it is: its bundle would be itself.
        coldMcpbMs: peer.mcpb100 ? median(coldsMcpb[i]) : peer.key === "echo" ? median(colds[i]) : undefined,
        coldMcpbBareMs: !BARE_ENV ? undefined : peer.mcpb100 ? median(coldsMcpbBare[i]) : peer.key === "echo" ? median(coldsBare[i]) : undefined,
        listRate: list.rate,
        listCpuUs: list.cpuUs,
        listP50Us: list.p50Us,
        listCalls: list.calls,
      };
    });
    return result;
  } finally {
    PIN?.release();
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

/**
 * Medians over rounds, the spread between rounds, ratios, target verdicts. A ratio is the median of the rounds'
 * own ratios (`pairedRatio`): the peers of a round are measured in the same minutes, in turns, while from round
 * to round this machine's speed moves by 20 % or more.
 */
function summarizeRounds(peers, rounds) {
  const summary = {};
  for (const [metric, , , higherIsBetter, kind, eraOf] of METRICS) {
    const row = { values: {}, spread: {} };
    for (const peer of peers) {
      const values = rounds.map((r) => r[peer.key][metric]).filter((v) => v !== undefined && !Number.isNaN(v));
      if (values.length === 0) continue;
      row.values[peer.key] = median(values);
      row.spread[peer.key] = round3(spread(values));
    }
    const sdks = ["sdk-v1", "sdk-v2"].filter((k) => k in row.values).map((k) => row.values[k]);
    const sdkBest = sdks.length ? (higherIsBetter ? Math.max(...sdks) : Math.min(...sdks)) : undefined;
    const m = row.values.mcpgen;
    const echo = row.values.echo;
    row.sdkBest = sdkBest;
    if (m !== undefined && sdkBest !== undefined) row.vsSdk = m / sdkBest;
    const of = (key, at = metric) => rounds.map((r) => r[key]?.[at]);
    if (m !== undefined && echo !== undefined) row.vsEcho = pairedRatio(of("mcpgen"), of("echo"));
    if (row.values["echo-busy"] !== undefined && echo !== undefined) row.busyVsEcho = pairedRatio(of("echo-busy"), of("echo"));
    if (kind && row.vsEcho !== undefined) {
      row.target = TARGETS[kind].text;
      row.met = TARGETS[kind].ok(row.vsEcho);
    }
    if (eraOf && m !== undefined) {
      // Each peer's 2026 figure against its own 2025 figure of the same round (a cost inverted).
      const era = (key) => (higherIsBetter ? pairedRatio(of(key), of(key, eraOf)) : pairedRatio(of(key, eraOf), of(key)));
      if (summary[eraOf]?.values.mcpgen !== undefined) {
        row.vs2025 = era("mcpgen");
        row.eraMet = row.vs2025 !== undefined && TARGETS.era.ok(row.vs2025);
      }
      // The echo's own 2026 ÷ 2025: what the larger 2026 messages cost with no MCP machinery at all.
      if (summary[eraOf]?.values.echo !== undefined && echo !== undefined) row.echoVs2025 = era("echo");
    }
    summary[metric] = row;
  }
  return summary;
}

/**
 * --profile: mcpgen alone under `--cpu-prof`, summarised: one more `add` round per era (2025 on an initialized
 * process, 2026 on its own process, the busier profile being the loaded one), and cold starts of the 100-tool
 * server (sampled every 50 µs; spawn → initialize + tools/list, stdin closed).
 */
async function profileMcpgen(peer, root) {
  if (!peer) return undefined;
  const profiles = [];
  const options = { top: 20, noFile: "(natives: V8 builtins, syscalls)" };
  for (const era of ["2025", "2026"]) {
    log(`profile: mcpgen add server, ${era} era, under --cpu-prof`);
    const dir = path.join(root, `cpu-profile-${era}`);
    const result = await benchAdd([peer], root, { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`], eras: [era] });
    const busiest = readdirSync(dir)
      .filter((f) => f.endsWith(".cpuprofile"))
      .map((f) => summarize(path.join(dir, f), options))
      .sort((a, b) => b.busyMs - a.busyMs)[0];
    const rate = era === "2025" ? result[peer.key].pipeRate : result[peer.key].pipe26Rate;
    profiles.push({ what: `${era} era, sequential + pipelined add (${Math.round(rate)} calls/s pipelined under the profiler)`, ...busiest });
  }
  log("profile: cold starts of mcpgen's 100-tool server under --cpu-prof");
  const dir = path.join(root, "cpu-profile-cold");
  for (let k = 0; k < 3; k++) {
    const p = spawnPeer({ ...peer.tools100, args: ["--cpu-prof", "--cpu-prof-interval=50", `--cpu-prof-dir=${dir}`, ...peer.tools100.args], cwd: root });
    await p.handshake();
    await p.request("tools/list", {});
    await p.close(5000);
  }
  const files = readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"));
  const colds = files.map((f) => summarize(path.join(dir, f), options)).sort((a, b) => a.busyMs - b.busyMs);
  profiles.push({ what: `cold start, 100 tools (median of ${colds.length} by busy time; the profile covers the process's whole life)`, ...colds[colds.length >> 1] });
  return profiles;
}

/**
 * --gc: how often each peer's young generation fills under the pipelined `add` load (2025 era, and 2026 for
 * the peers that speak it), on fresh processes with bench/lib/gc-count.mjs preloaded: after a warm-up, the
 * pipelined phase in slices, the processes taking turns. What a server allocates per call sets how often it
 * pauses for a scavenge, and each pause costs about the same whoever allocated.
 */
async function benchGc(peers, root) {
  log("gc: young-generation collections under pipelined add");
  const runs = [];
  try {
    for (const peer of peers) {
      for (const era of MODERN_PEERS.includes(peer.key) ? ["2025", "2026"] : ["2025"]) {
        const p = spawnPeer({ ...peer.add, args: ["--import", GC_COUNT, ...peer.add.args], cwd: root });
        runs.push({ peer: peer.key, era, p, call: era === "2025" ? addCall : modernAddCall, calls: 0, young: 0, pauseMs: 0 });
        if (era === "2025") await p.handshake();
        await closedLoop(p, { depth: DEPTH, durationMs: plan.warmMs, ...runs.at(-1).call });
      }
    }
    for (let s = 0; s < plan.slices; s++) {
      for (const run of s % 2 ? [...runs].reverse() : runs) {
        await gcReport(run.p);
        run.calls += (await closedLoop(run.p, { depth: DEPTH, durationMs: plan.pipeMs / plan.slices, ...run.call })).calls;
        const counted = await gcReport(run.p);
        run.young += counted.young[0];
        run.pauseMs += counted.young[1];
      }
    }
  } finally {
    for (const { p } of runs) await p.close();
  }
  return runs.map(({ peer, era, calls, young, pauseMs }) => ({
    peer,
    era,
    calls,
    callsPerCollection: young ? Math.round(calls / young) : undefined,
    pauseNsPerCall: Math.round((pauseMs * 1e6) / calls),
  }));
}

/** Asks a process preloaded with gc-count.mjs for what it counted since it was last asked. */
async function gcReport(p) {
  const marker = "mcpgen-bench-gc ";
  p.stderr = "";
  process.kill(p.pid, "SIGUSR2");
  for (let waited = 0; waited < 5000; waited += 10) {
    const at = p.stderr.indexOf(marker);
    const end = at === -1 ? -1 : p.stderr.indexOf("\n", at);
    if (end !== -1) return JSON.parse(p.stderr.slice(at + marker.length, end));
    await sleep(10);
  }
  throw new Error(`no garbage-collection report from process ${p.pid} within 5 s`);
}

// ---------------------------------------------------------------------------------------------------------
// The readable report: a Markdown table (pasted as is into BENCHMARKS.md).

function report(r) {
  const lines = [];
  const p = (...l) => lines.push(...l);
  const pl = r.plan;
  p(`mcpgen stdio benchmark: node ${r.node}, ${r.machine}; load average ${r.loadAverage.start[0]} at start, ${r.loadAverage.end[0]} at end`);
  p(`A minor page fault (a page's first touch) took ${r.pageFaultUs.start} µs at start, ${r.pageFaultUs.end} at end: the cold starts pay it for every page they touch.`);
  p(r.pinned ? `Measured with ${r.pinned}; cold starts not pinned.` : "Processes placed by the scheduler.");
  p(
    `${pl.rounds} rounds, medians; per round and peer: warm-up ${pl.warmMs} ms, sequential ${pl.seqMs} ms, pipelined (${pl.depth} in flight) ${pl.pipeMs} ms, ` +
      `${pl.coldRuns} cold starts, tools/list ${pl.listMs} ms, each phase in ${pl.slices} slices with the peers taking turns; ` +
      `100-tool list = ${Math.round(r.fixture.listBytes / 1024)} KiB of JSON`,
  );
  p("");
  const keys = r.peers.map((x) => x.key);
  const busy = r.peers.find((x) => x.key === "echo-busy");
  const head = [
    "",
    ...r.peers.map((x) => x.label),
    "mcpgen ÷ best SDK",
    "mcpgen ÷ echo",
    "target",
    "",
    ...(busy ? [`${busy.label} ÷ echo`] : []),
    "mcpgen 2026 ÷ 2025 (≥ 0.95)",
    "echo 2026 ÷ 2025",
  ];
  const rows = METRICS.map(([metric, label, unit]) => {
    const s = r.summary[metric];
    return [
      label,
      ...keys.map((k) => (s.values[k] === undefined ? "" : `${fmt(s.values[k], unit)} ±${Math.round((s.spread[k] * 100) / 2)}%`)),
      s.vsSdk === undefined ? "" : `${s.vsSdk.toFixed(2)}×`,
      s.vsEcho === undefined ? "" : `${s.vsEcho.toFixed(2)}×`,
      s.target ?? "",
      s.met === undefined ? "" : s.met ? "✓" : "✗",
      ...(busy ? [s.busyVsEcho === undefined ? "" : `${s.busyVsEcho.toFixed(2)}×`] : []),
      s.vs2025 === undefined ? "" : `${s.vs2025.toFixed(2)}× ${s.eraMet ? "✓" : "✗"}`,
      s.echoVs2025 === undefined ? "" : `${s.echoVs2025.toFixed(2)}×`,
    ];
  });
  p(markdownTable(head, rows));
  p("(each figure: median over rounds ± half the spread between rounds, (max − min) / 2 ÷ median; each ratio: the median of the rounds' own ratios)");
  p("");
  for (const prof of r.profile ?? []) {
    const row = (o) => `    ${String(o.ms).padStart(6)} ms ${String(Math.round((o.ms / prof.busyMs) * 1000) / 10).padStart(5)}%  ${o.name}`;
    p(`CPU profile of mcpgen's server, ${prof.what}: ${prof.busyMs} ms on CPU of ${prof.totalMs} ms sampled (% of on-CPU time)`);
    p("  self time by owner:", ...prof.byOwner.map(row));
    p("  hottest functions (self):", ...prof.selfTop.map(row));
    p("  mcpgen functions (inclusive):", ...prof.inclusiveMcpgen.map(row));
    p("");
  }
  if (r.gc) {
    const label = (key) => r.peers.find((peer) => peer.key === key)?.label ?? key;
    const echo = (era) => r.gc.find((g) => g.peer === "echo" && g.era === era);
    p(
      `Young-generation collections (scavenges) under pipelined add (--gc; ${pl.pipeMs} ms per peer and era in ${pl.slices} slices; ` +
        "more calls per collection: less allocated per call):",
      "",
      markdownTable(
        ["peer", "era", "calls", "calls per collection", "÷ echo", "pause per call, ns"],
        r.gc.map((g) => [
          label(g.peer),
          g.era,
          g.calls.toLocaleString("en-US"),
          g.callsPerCollection?.toLocaleString("en-US") ?? "none",
          echo(g.era)?.callsPerCollection && g.callsPerCollection ? `${(g.callsPerCollection / echo(g.era).callsPerCollection).toFixed(2)}×` : "",
          String(g.pauseNsPerCall),
        ]),
      ),
      "",
    );
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
  const opts = { quick: false, rounds: undefined, peers: ["mcpgen", "sdk-v1", "sdk-v2", "echo"], json: false, keep: false, profile: false, gc: false, v2JsonSchema: false };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const value = () => inline ?? argv[++i];
    if (flag === "--quick") opts.quick = true;
    else if (flag === "--rounds") opts.rounds = Number(value());
    else if (flag === "--peers") opts.peers = value().split(",");
    else if (flag === "--json") opts.json = true;
    else if (flag === "--keep") opts.keep = true;
    else if (flag === "--no-pin") opts.noPin = true;
    else if (flag === "--profile") opts.profile = true;
    else if (flag === "--gc") opts.gc = true;
    else if (flag === "--v2-json-schema") opts.v2JsonSchema = true;
    else {
      process.stderr.write("usage: node bench/run.mjs [--quick] [--rounds N] [--peers mcpgen,sdk-v1,sdk-v2,echo,echo-busy] [--json] [--keep] [--no-pin] [--profile] [--gc] [--v2-json-schema]\n");
      process.exit(2);
    }
  }
  if (opts.rounds !== undefined && !(Number.isInteger(opts.rounds) && opts.rounds >= 1)) {
    process.stderr.write("bench: --rounds takes a positive integer\n");
    process.exit(2);
  }
  const known = ["mcpgen", "sdk-v1", "sdk-v2", "echo", "echo-busy"];
  const unknown = opts.peers.filter((p) => !known.includes(p));
  if (unknown.length) {
    process.stderr.write(`bench: unknown peer ${unknown.join(", ")} (known: ${known.join(", ")})\n`);
    process.exit(2);
  }
  return opts;
}

await main();
