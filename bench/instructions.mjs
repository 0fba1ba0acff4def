/**
 * Instructions per call, counted: the in-process benchmarks' work (bench/stdio/in-process.mjs,
 * bench/http/in-process.mjs) run under Valgrind, which counts every instruction the process executes; and
 * instructions per cold start of bench/run.mjs's 100-tool servers, counted the same way. Time on
 * a shared VM moves by 10–30 % from minute to minute (BENCHMARKS.md, "The VM's two CPUs are not equal"); an
 * instruction count repeats within ~0.1 %, so two builds can be told apart by a change of 0.2 % in one run
 * each. It is a count, not a time: a cache miss or a system call costs far more than its instructions, so
 * the rows of bench/run.mjs and bench/http/run.mjs are still what the targets hold to.
 *
 *   node bench/instructions.mjs [--rows a,b,…] [--functions N] [--json]
 *     --rows         which rows (default all): stdio-add, stdio-add-2026, stdio-search, http-json-2025,
 *                    http-json-2026, http-sse-2025, http-sse-2026, cold-start
 *     --functions N  also the N functions (JavaScript, V8's builtins and runtime, libc) that take the most
 *                    instructions per call (per start), for each peer (Valgrind's callgrind and Node's
 *                    --perf-basic-prof)
 *
 * Each row runs each peer twice, at two slice lengths, with the same warm-up; the difference between the two
 * counts, divided by the calls between them, is what one call costs in the steady state, without start-up,
 * warm-up and exit. Node runs with `--single-threaded`: V8's collector and compiler work on the main thread,
 * so their instructions are counted as well, and the count does not depend on how threads were scheduled;
 * with fixed hash and random seeds, on which the string table's lookups depend; and with each peer's young
 * generation fixed (`SEMI_SPACE_MIB`). The stdio rows hold mcpgen against the echo (the limit of
 * bench/run.mjs); the HTTP rows measure mcpgen alone, as bench/http/in-process.mjs does.
 *
 * The cold-start row counts whole processes, as bench/run.mjs times them: spawn → `initialize` and
 * `tools/list` answered, the 100-tool fixture (bench/stdio/setup.mjs) served by mcpgen as built, by the same
 * server as an MCP Bundle, and by the echo. Node starts without NODE_EXTRA_CA_CERTS (reading the certificates
 * is the same for every peer: bench/lib/node-start.mjs) and its default heap; bench/lib/cold-count.mjs, loaded
 * into each, ends the count when the list is answered and holds back timers until then.
 *
 * Valgrind runs each process ~30× slower: the whole run takes ~10 minutes.
 * Needs `valgrind` (Debian: `apt-get install valgrind`). A benchmark, not a test: it exits 0 whatever it counts.
 */
import { execFileSync, spawn } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { BARE_ENV } from "./lib/node-start.mjs";
import { PROTOCOL_VERSION } from "./stdio/driver.mjs";
import { setUp, setUpExample, setUpFixture } from "./stdio/setup.mjs";

const REPO = path.resolve(fileURLToPath(import.meta.url), "../..");
const STDIO = path.join(REPO, "bench", "stdio", "in-process.mjs");
const HTTP = path.join(REPO, "bench", "http", "in-process.mjs");
const ECHO = path.join(REPO, "bench", "stdio", "servers", "echo.mjs");
const COLD_COUNT = path.join(REPO, "bench", "lib", "cold-count.mjs");
/**
 * What a cold start is sent: bench/run.mjs's handshake, then `tools/list`. Written at once, where that client
 * waits for the `initialize` answer first: under Valgrind, when the lines arrive would change the count.
 */
const COLD_INPUT = [
  { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "mcpgen-bench", version: "1.0.0" } } },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
]
  .map((message) => `${JSON.stringify(message)}\n`)
  .join("");
/**
 * What each row's child is told (bench/stdio/in-process.mjs takes a peer and a workload;
 * bench/http/in-process.mjs, which measures mcpgen only, a response mode and an era), its calls per batch
 * and the two slice lengths in batches: both scripts warm up with a count that does not depend on them.
 */
const ROWS = {
  "stdio-add": { script: STDIO, child: (peer) => [peer, "add"], perBatch: 64, peers: ["mcpgen", "echo"], batches: [100, 500] },
  "stdio-add-2026": { script: STDIO, child: (peer) => [peer, "add 2026"], perBatch: 64, peers: ["mcpgen", "echo"], batches: [100, 500] },
  "stdio-search": { script: STDIO, child: (peer) => [peer, "search"], perBatch: 64, peers: ["mcpgen", "echo"], batches: [40, 200] },
  "http-json-2025": { script: HTTP, child: () => ["json", "2025"], perBatch: 4, peers: ["mcpgen"], batches: [400, 2000] },
  "http-json-2026": { script: HTTP, child: () => ["json", "2026"], perBatch: 4, peers: ["mcpgen"], batches: [400, 2000] },
  "http-sse-2025": { script: HTTP, child: () => ["sse", "2025"], perBatch: 4, peers: ["mcpgen"], batches: [400, 2000] },
  "http-sse-2026": { script: HTTP, child: () => ["sse", "2026"], perBatch: 4, peers: ["mcpgen"], batches: [400, 2000] },
  "cold-start": { start: true, peers: ["mcpgen", "mcpb", "echo"] },
};
/**
 * Each peer's young generation, fixed at the size it settles at in a native run under pipelined load (MiB per
 * semi-space): mcpgen's heap sizing (`tuneHeap`) stops it at 2 within the first second; V8 grows the echo's
 * from 1 to 2 after a few seconds (bench/run.mjs's processes live through both) and no further in 20 s. Left
 * to grow, it grew at different points from run to run under Valgrind, whose slowness V8's sizing (and
 * `tuneHeap`'s timer) read as a quiet process: the scavenges of one build's runs differed by ~300
 * instructions per call.
 */
const SEMI_SPACE_MIB = { mcpgen: 2, echo: 2 };
/** Slices per child process (both in-process scripts). */
const SLICES = 5;
const USAGE = "usage: node bench/instructions.mjs [--rows a,b,…] [--functions N] [--json]";

const args = process.argv.slice(2);
const { rows, functions, json } = parseArgs(args);
const log = (line) => process.stderr.write(`instructions: ${line}\n`);

let valgrind;
try {
  valgrind = execFileSync("valgrind", ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
} catch {
  process.stderr.write("instructions: needs valgrind on the PATH (Debian: apt-get install valgrind)\n");
  process.exit(1);
}

const root = mkdtempSync(path.join(os.tmpdir(), "mcpgen-bench-instructions-"));
/** The Valgrind processes running: stopped, and the scratch directory removed, when this one is interrupted. */
const children = new Set();
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    for (const child of children) {
      child.kill();
      rmSync(`/tmp/perf-${child.pid}.map`, { force: true }); // Valgrind runs Node in its own process
    }
    rmSync(root, { recursive: true, force: true });
    process.exit(signal === "SIGINT" ? 130 : 143);
  });
}
try {
  const perCall = rows.some((name) => !ROWS[name].start);
  const starts = rows.some((name) => ROWS[name].start);
  const built = perCall && starts ? await setUp(REPO, root, { log }) : perCall ? { example: await setUpExample(REPO, root, { log }) } : { tools100: await setUpFixture(REPO, root, { log }) };
  const registry = perCall ? path.join(path.dirname(built.example.entry), "registry.gen.js") : undefined;
  const results = [];
  for (const name of rows) {
    const row = ROWS[name];
    const peers = {};
    if (row.start) {
      log(`${name}: ${row.peers.join(", ")}`);
      // Every peer at once: Valgrind runs a process on one CPU, and a count does not depend on the others.
      const counts = await Promise.all(row.peers.map((peer) => countStart(peer, built.tools100)));
      row.peers.forEach((peer, i) => {
        peers[peer] = { instructions: counts[i].total };
        if (functions > 0) peers[peer].functions = topFunctions({}, counts[i].functions, 1, functions);
      });
    } else {
      for (const peer of row.peers) {
        log(`${name}: ${peer}`);
        // The two lengths at once: Valgrind runs a process on one CPU.
        const [short, long] = await Promise.all(row.batches.map((batches) => count(row, peer, root, registry, batches)));
        const calls = SLICES * (row.batches[1] - row.batches[0]) * row.perBatch;
        peers[peer] = { instructions: (long.total - short.total) / calls };
        if (functions > 0) peers[peer].functions = topFunctions(short.functions, long.functions, calls, functions);
      }
    }
    results.push({ row: name, ...(row.start && { perStart: true }), ...peers });
  }
  const report = { node: process.version, valgrind, results };
  process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : table(report));
} finally {
  rmSync(root, { recursive: true, force: true });
}

function parseArgs(list) {
  const fail = (message) => {
    process.stderr.write(`instructions: ${message}\n${USAGE}\n`);
    process.exit(2);
  };
  const value = (name) => (list.includes(name) ? list[list.indexOf(name) + 1] : undefined);
  const unknown = list.find((arg, i) => (arg.startsWith("--") ? !["--rows", "--functions", "--json"].includes(arg) : !["--rows", "--functions"].includes(list[i - 1])));
  if (unknown !== undefined) fail(`unknown argument ${unknown}`);
  const chosen = value("--rows")?.split(",") ?? Object.keys(ROWS);
  const wrong = chosen.find((name) => !Object.hasOwn(ROWS, name));
  if (wrong !== undefined) fail(`no row "${wrong}" (rows: ${Object.keys(ROWS).join(", ")})`);
  const functionCount = Number(value("--functions") ?? 0);
  if (!Number.isInteger(functionCount) || functionCount < 0) fail("--functions takes a whole number");
  return { rows: chosen, functions: functionCount, json: list.includes("--json") };
}

/** One child of a per-call row under Valgrind: its total instruction count, and (with --functions) the count by function. */
function count(row, peer, root, registry, batches) {
  const semiSpace = [`--min-semi-space-size=${SEMI_SPACE_MIB[peer]}`, `--max-semi-space-size=${SEMI_SPACE_MIB[peer]}`];
  return counted([...semiSpace, row.script, "--child", ...row.child(peer), root, registry, "--batches", String(batches)]);
}

/** One cold start of `peer` serving the 100-tool fixture under Valgrind, checked to have listed every tool. */
async function countStart(peer, fixture) {
  const entry = { mcpgen: [fixture.entry], mcpb: [fixture.mcpbEntry], echo: [ECHO, "--tools", fixture.toolsJson] }[peer];
  const scratch = mkdtempSync(path.join(root, "answer-"));
  try {
    const answerFile = path.join(scratch, "answer");
    const answer = openSync(answerFile, "w");
    let result;
    try {
      result = await counted(["--import", COLD_COUNT, ...entry], { cwd: path.dirname(fixture.toolsJson), env: BARE_ENV, input: COLD_INPUT, fd3: answer });
    } finally {
      closeSync(answer);
    }
    const line = readFileSync(answerFile, "utf8")
      .split("\n")
      .find((text) => text.includes('"id":2,'));
    const listed = line === undefined ? undefined : JSON.parse(line).result?.tools?.length;
    if (listed !== fixture.tools) throw new Error(`${peer}'s cold start listed ${listed} tools, expected ${fixture.tools}`);
    return result;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Node with `nodeArgs` under Valgrind (cachegrind, or callgrind with --functions): its total instruction count,
 * and (with --functions) the count by function. `input` is written to its stdin; `fd3`, a file descriptor it
 * gets as its fourth.
 */
async function counted(nodeArgs, { cwd, env, input, fd3 } = {}) {
  const scratch = mkdtempSync(path.join(root, "valgrind-"));
  try {
    const out = path.join(scratch, "callgrind.out");
    const tool = functions > 0 ? ["--tool=callgrind", `--callgrind-out-file=${out}`] : ["--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"];
    // --smc-check: V8 writes the code it compiles into memory Valgrind must watch for changes.
    // Fixed seeds: V8 hashes strings with a random seed, and how long a string-table lookup takes depends on it.
    const node = [process.execPath, "--single-threaded", "--hash-seed=1", "--random-seed=1", ...(functions > 0 ? ["--perf-basic-prof"] : [])];
    const child = spawn("valgrind", [...tool, "--smc-check=all-non-file", ...node, ...nodeArgs], {
      cwd: cwd ?? scratch,
      env: env ?? process.env,
      stdio: ["pipe", "pipe", "pipe", ...(fd3 === undefined ? [] : [fd3])],
    });
    children.add(child);
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (text) => (stderr = (stderr + text).slice(-1 << 16)));
    child.stdout.resume();
    child.stdin.on("error", () => {}); // a child that exits before reading all of it
    child.stdin.end(input ?? "");
    const code = await new Promise((resolve, reject) => child.once("error", reject).once("close", resolve));
    children.delete(child);
    if (code !== 0) throw new Error(`valgrind ${nodeArgs.join(" ")} exited with ${code}:\n${stderr.slice(-2000)}`);
    const refs = /==(\d+)== (?:Collected|I\s+refs)\s*:\s*([\d,]+)/.exec(stderr);
    if (refs === null) throw new Error(`no instruction count from valgrind:\n${stderr.slice(-2000)}`);
    const total = Number(refs[2].replaceAll(",", ""));
    if (functions === 0) return { total };
    const map = `/tmp/perf-${refs[1]}.map`; // where --perf-basic-prof writes its map of compiled code
    try {
      return { total, functions: byFunction(out, existsSync(map) ? readFileSync(map, "utf8") : "") };
    } finally {
      rmSync(map, { force: true });
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Instructions by function from a callgrind profile. Code V8 compiled has no symbols: callgrind names it by
 * address, which the process's perf map turns into the JavaScript function's name and place.
 */
function byFunction(profile, perfMap) {
  const compiled = perfMap
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [start, size, ...name] = line.split(" ");
      return { start: parseInt(start, 16), end: parseInt(start, 16) + parseInt(size, 16), name: name.join(" ") };
    })
    .sort((a, b) => a.start - b.start);
  const jsName = (address) => {
    let low = 0;
    let high = compiled.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (compiled[middle].start <= address) low = middle + 1;
      else high = middle - 1;
    }
    const code = compiled[high];
    if (code === undefined || address >= code.end) return "(compiled code, unnamed)";
    // "JS:*name file:///…/dist/main.js:12:3" → "name main.js:12"
    const name = code.name.replace(/^[A-Za-z]+:[*~^+]?/, "").replace(/file:\/\/\/\S*\/(?=[^/\s]+:\d+)/, "").replace(/:\d+$/, "");
    return name.startsWith(" ") ? `(anonymous)${name}` : name;
  };
  const text = execFileSync("callgrind_annotate", ["--threshold=100", profile], { encoding: "utf8", maxBuffer: 1 << 28 });
  const counts = new Map();
  for (const line of text.split("\n")) {
    const match = /^\s*([\d,]+) \([\s\d.]+%\)\s+(.*)$/.exec(line);
    if (match === null || match[2].startsWith("PROGRAM TOTALS")) continue;
    const address = /^\?\?\?:0x([0-9a-f]+) \[\?\?\?\]/.exec(match[2]);
    const name = address ? `js ${jsName(parseInt(address[1], 16))}` : nativeName(match[2]);
    counts.set(name, (counts.get(name) ?? 0) + Number(match[1].replaceAll(",", "")));
  }
  return Object.fromEntries(counts);
}

/** `???:int v8::internal::Foo<(Mode)0, Bar>(Baz*) [/usr/bin/node]` → `v8::internal::Foo`; `./malloc/malloc.c:free […]` → `free`. */
function nativeName(text) {
  let name = text
    .replace(/ \[[^\]]*\]$/, "") // the object file
    .replace(/^\?\?\?:|^[^\s:]*\/[^\s:]*:/, "") // the source file, when there is one
    .replaceAll("(anonymous namespace)", "anon");
  for (let before = ""; before !== name; ) [before, name] = [name, name.replace(/<[^<>]*>/g, "")]; // template arguments
  name = name.replace(/\(.*$/, ""); // parameters
  return name.slice(name.lastIndexOf(" ") + 1); // the return type
}

function topFunctions(short, long, calls, top) {
  return Object.keys(long)
    .map((name) => ({ name, instructions: (long[name] - (short[name] ?? 0)) / calls }))
    .sort((a, b) => b.instructions - a.instructions)
    .slice(0, top);
}

function table({ node, valgrind, results }) {
  const n = (value) => Math.round(value).toLocaleString("en-US");
  const ratio = (a, b) => `${(a / b).toFixed(3)}×`;
  const lines = [`node ${node} --single-threaded --hash-seed=1 --random-seed=1, ${valgrind}`];
  const perCall = results.filter((result) => !result.perStart);
  if (perCall.length > 0) {
    lines.push("", "Instructions per call, in the steady state: the difference of two runs of each peer", "");
    lines.push("| row | mcpgen | echo | mcpgen ÷ echo | mcpgen − echo |", "| --- | ---: | ---: | ---: | ---: |");
    for (const { row, mcpgen, echo } of perCall) {
      const cells = echo ? [n(echo.instructions), ratio(mcpgen.instructions, echo.instructions), n(mcpgen.instructions - echo.instructions)] : ["", "", ""];
      lines.push(`| ${row} | ${n(mcpgen.instructions)} | ${cells.join(" | ")} |`);
    }
  }
  for (const { row, mcpgen, mcpb, echo } of results.filter((result) => result.perStart)) {
    lines.push("", "Instructions per cold start, 100 tools (spawn → initialize and tools/list answered; without NODE_EXTRA_CA_CERTS)");
    // The map of compiled code that --functions has Node write costs a start ~30 million instructions more.
    if (functions > 0) lines.push("With --functions: counts include Node writing its --perf-basic-prof map; compare them only with counts taken the same way.");
    lines.push("");
    lines.push("| row | mcpgen | MCP Bundle | echo | mcpgen ÷ echo | bundle ÷ echo |", "| --- | ---: | ---: | ---: | ---: | ---: |");
    lines.push(`| ${row} | ${n(mcpgen.instructions)} | ${n(mcpb.instructions)} | ${n(echo.instructions)} | ${ratio(mcpgen.instructions, echo.instructions)} | ${ratio(mcpb.instructions, echo.instructions)} |`);
  }
  for (const { row, perStart, ...peers } of results) {
    for (const [peer, { functions: list }] of Object.entries(peers)) {
      if (list === undefined) continue;
      lines.push("", `${row}, ${peer}: instructions ${perStart ? "per start" : "per call"} by function`, "", `| function | ${perStart ? "per start" : "per call"} |`, "| --- | ---: |");
      for (const { name, instructions } of list) lines.push(`| ${name.replaceAll("|", "\\|")} | ${n(instructions)} |`);
    }
  }
  return `${lines.join("\n")}\n`;
}
