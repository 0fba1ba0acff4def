/**
 * Instructions per call, counted: the in-process benchmarks' work (bench/stdio/in-process.mjs,
 * bench/http/in-process.mjs) run under Valgrind, which counts every instruction the process executes. Time on
 * a shared VM moves by 10–30 % from minute to minute (BENCHMARKS.md, "The VM's two CPUs are not equal"); an
 * instruction count repeats within ~0.1 %, so two builds can be told apart by a change of 0.2 % in one run
 * each. It is a count, not a time: a cache miss or a system call costs far more than its instructions, so
 * the rows of bench/run.mjs and bench/http/run.mjs are still what the targets hold to.
 *
 *   node bench/instructions.mjs [--rows a,b,…] [--functions N] [--json]
 *     --rows         which rows (default all): stdio-add, stdio-add-2026, stdio-search, http-json-2025,
 *                    http-json-2026, http-sse-2025, http-sse-2026
 *     --functions N  also the N functions (JavaScript, V8's builtins and runtime, libc) that take the most
 *                    instructions per call, for each peer (Valgrind's callgrind and Node's --perf-basic-prof)
 *
 * Each row runs each peer twice, at two slice lengths, with the same warm-up; the difference between the two
 * counts, divided by the calls between them, is what one call costs in the steady state, without start-up,
 * warm-up and exit. Node runs with `--single-threaded`: V8's collector and compiler work on the main thread,
 * so their instructions are counted as well, and the count does not depend on how threads were scheduled;
 * with fixed hash and random seeds, on which the string table's lookups depend; and with each peer's young
 * generation fixed (`SEMI_SPACE_MIB`). The stdio rows hold mcpgen against the echo (the limit of
 * bench/run.mjs); the HTTP rows measure mcpgen alone, as bench/http/in-process.mjs does. Valgrind runs each process ~30× slower: the whole run takes ~10 minutes.
 * Needs `valgrind` (Debian: `apt-get install valgrind`). A benchmark, not a test: it exits 0 whatever it counts.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { setUpExample } from "./stdio/setup.mjs";

const REPO = path.resolve(fileURLToPath(import.meta.url), "../..");
const STDIO = path.join(REPO, "bench", "stdio", "in-process.mjs");
const HTTP = path.join(REPO, "bench", "http", "in-process.mjs");
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
};
/**
 * Each peer's young generation, fixed at the size it settles at in a native run (MiB per semi-space): mcpgen's
 * heap sizing (`tuneHeap`) stops it at 2, V8 grows the echo's to 16. Left to grow, it grew at different points
 * from run to run under Valgrind, whose slowness V8's sizing (and `tuneHeap`'s timer) read as a quiet
 * process: the scavenges of one build's runs differed by ~300 instructions per call.
 */
const SEMI_SPACE_MIB = { mcpgen: 2, echo: 16 };
/** Slices per child process (both in-process scripts). */
const SLICES = 5;
const USAGE = "usage: node bench/instructions.mjs [--rows a,b,…] [--functions N] [--json]";

const run = promisify(execFile);
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
  const { entry } = await setUpExample(REPO, root, { log });
  const registry = path.join(path.dirname(entry), "registry.gen.js");
  const results = [];
  for (const name of rows) {
    const row = ROWS[name];
    const peers = {};
    for (const peer of row.peers) {
      log(`${name}: ${peer}`);
      // The two lengths at once: Valgrind runs a process on one CPU.
      const [short, long] = await Promise.all(row.batches.map((batches) => count(row, peer, root, registry, batches)));
      const calls = SLICES * (row.batches[1] - row.batches[0]) * row.perBatch;
      peers[peer] = { perCall: (long.total - short.total) / calls };
      if (functions > 0) peers[peer].functions = topFunctions(short.functions, long.functions, calls, functions);
    }
    results.push({ row: name, ...peers });
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

/** One child under Valgrind: its total instruction count, and (with --functions) the count by function. */
async function count(row, peer, root, registry, batches) {
  const scratch = mkdtempSync(path.join(root, "valgrind-"));
  try {
    const out = path.join(scratch, "callgrind.out");
    const tool = functions > 0 ? ["--tool=callgrind", `--callgrind-out-file=${out}`] : ["--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"];
    // --smc-check: V8 writes the code it compiles into memory Valgrind must watch for changes.
    // Fixed seeds: V8 hashes strings with a random seed, and how long a string-table lookup takes depends on it.
    const semiSpace = [`--min-semi-space-size=${SEMI_SPACE_MIB[peer]}`, `--max-semi-space-size=${SEMI_SPACE_MIB[peer]}`];
    const node = [process.execPath, "--single-threaded", "--hash-seed=1", "--random-seed=1", ...semiSpace, ...(functions > 0 ? ["--perf-basic-prof"] : [])];
    const child = [row.script, "--child", ...row.child(peer), root, registry, "--batches", String(batches)];
    const running = run("valgrind", [...tool, "--smc-check=all-non-file", ...node, ...child], { cwd: scratch, maxBuffer: 1 << 26 });
    children.add(running.child);
    const { stderr } = await running.finally(() => children.delete(running.child));
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
    .map((name) => ({ name, perCall: (long[name] - (short[name] ?? 0)) / calls }))
    .sort((a, b) => b.perCall - a.perCall)
    .slice(0, top);
}

function table({ node, valgrind, results }) {
  const n = (value) => Math.round(value).toLocaleString("en-US");
  const lines = [
    `Instructions per call, node ${node} --single-threaded --hash-seed=1 --random-seed=1, ${valgrind}; the steady state: the difference of two runs of each peer`,
    "",
    "| row | mcpgen | echo | mcpgen ÷ echo | mcpgen − echo |",
    "| --- | ---: | ---: | ---: | ---: |",
  ];
  for (const { row, mcpgen, echo } of results) {
    const cells = echo ? [n(echo.perCall), `${(mcpgen.perCall / echo.perCall).toFixed(3)}×`, n(mcpgen.perCall - echo.perCall)] : ["", "", ""];
    lines.push(`| ${row} | ${n(mcpgen.perCall)} | ${cells.join(" | ")} |`);
  }
  for (const { row, ...peers } of results) {
    for (const [peer, { functions: list }] of Object.entries(peers)) {
      if (list === undefined) continue;
      lines.push("", `${row}, ${peer}: instructions per call by function`, "", "| function | per call |", "| --- | ---: |");
      for (const { name, perCall } of list) lines.push(`| ${name.replaceAll("|", "\\|")} | ${n(perCall)} |`);
    }
  }
  return `${lines.join("\n")}\n`;
}
