/**
 * A server's own work per call, without the pipe: mcpgen's stdio transport and the echo's loop (the limit of
 * bench/run.mjs, bench/stdio/servers/echo.mjs, loaded unchanged with `process.stdin` and `process.stdout`
 * replaced) each fed the same chunks of 64 requests through in-memory streams. No system call, no wake-up,
 * no driver shares the CPU: what is left is each server's JavaScript, its allocations and its garbage
 * collection, which vary far less from run to run than the pipe's rows do (a few percent), so a change of
 * tens of nanoseconds per call shows. The wire rows of bench/run.mjs are what the targets hold to; this
 * says how much of mcpgen's own work per call is left to find.
 *
 *   node bench/stdio/in-process.mjs [--runs N] [--batches N] [--alloc] [--no-pin] [--json]
 *     --runs N      fresh processes per peer and workload, taking turns (default 3); medians over them
 *     --batches N   chunks of 64 requests per measured slice (default 2000); five slices per process
 *     --alloc       also bytes allocated per call, from a sampling heap profile that counts collected objects
 *     --no-pin      lets the scheduler place each process; by default its main thread runs on CPU 0 (the
 *                   VM's CPUs need not be equally fast: bench/lib/pin.mjs)
 *
 * Workloads: `add` (2025-11-25 era, in a session), `add 2026` (the 2026-07-28 envelope in every request's
 * `_meta`), `search` (`list_tasks` over ten tasks, all returned and validated; the echo searches a copy of
 * mcpgen's store, as in bench/run.mjs). mcpgen runs with the heap sizing its `main()` gives a stdio server
 * (`tuneHeap`). Runs under whatever Node starts it, so two Node versions can be held side by side.
 * A benchmark, not a test: it prints figures and exits 0 whatever they are.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough, Writable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { allocatedPer } from "../lib/allocated.mjs";
import { inProcessOptions } from "../lib/in-process-options.mjs";
import { pinning } from "../lib/pin.mjs";
import { median } from "../lib/stats.mjs";
import { addCall, modernAddCall, PROTOCOL_VERSION, SEARCH_TASKS, searchCall } from "./driver.mjs";
import { setUpExample } from "./setup.mjs";

const REPO = path.resolve(fileURLToPath(import.meta.url), "../../..");
const DEPTH = 64;
const SLICES = 5;
/** What is sent, and how its answer is checked: `line(id)` and `check(message, id)`. */
const WORKLOADS = { add: addCall, "add 2026": modernAddCall, search: searchCall };

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);

if (args[0] === "--child") await child(args[1], args[2], args[3], args[4], Number(option("--batches", 2000)), args.includes("--alloc"));
else await parent();

async function parent() {
  const { runs, batches, alloc, pin, json } = inProcessOptions(args, { prefix: "in-process", usage: "usage: node bench/stdio/in-process.mjs [--runs N] [--batches N] [--alloc] [--no-pin] [--json]", batches: 2000 });
  const log = (line) => process.stderr.write(`in-process: ${line}\n`);
  const root = mkdtempSync(path.join(os.tmpdir(), "mcpgen-bench-in-process-"));
  try {
    const { entry } = await setUpExample(REPO, root, { log });
    const registry = path.join(path.dirname(entry), "registry.gen.js");
    const results = [];
    for (const workload of Object.keys(WORKLOADS)) {
      const figures = { mcpgen: [], echo: [] };
      for (let r = 0; r < runs; r++) {
        // mcpgen first in the first run: the echo's search store is a copy of its store.
        for (const peer of r % 2 === 0 ? ["mcpgen", "echo"] : ["echo", "mcpgen"]) {
          log(`${workload}: ${peer}, process ${r + 1}/${runs}`);
          const childArgs = [fileURLToPath(import.meta.url), "--child", peer, workload, root, registry, "--batches", String(batches), ...(alloc ? ["--alloc"] : []), ...(pin ? ["--pin"] : [])];
          figures[peer].push(JSON.parse(execFileSync(process.execPath, childArgs, { cwd: root, encoding: "utf8" })));
        }
      }
      results.push({ workload, ...Object.fromEntries(Object.entries(figures).map(([peer, list]) => [peer, summarize(list)])) });
    }
    const report = { node: process.version, machine: `${os.cpus().length} × ${os.cpus()[0]?.model.trim()}`, runs, pinned: pin, results };
    process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : table(report));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Medians over a peer's processes. */
function summarize(list) {
  const pick = (key) => (list[0][key] === undefined ? undefined : median(list.map((f) => f[key])));
  return { cpuNs: pick("cpuNs"), wallNs: pick("wallNs"), allocBytes: pick("allocBytes"), each: list.map((f) => Math.round(f.cpuNs)) };
}

function table({ node, machine, runs, pinned, results }) {
  const alloc = results[0].mcpgen.allocBytes !== undefined;
  const bytes = (f) => Math.round(f.allocBytes).toLocaleString("en-US");
  const lines = [
    `mcpgen in process against the echo: node ${node}, ${machine}; ${runs} fresh processes per peer and workload, medians${pinned ? "; each one's main thread on CPU 0" : ""}`,
    "",
    `| workload | mcpgen CPU ns/call | echo CPU ns/call | mcpgen ÷ echo | mcpgen − echo, ns |${alloc ? " mcpgen B/call | echo B/call |" : ""}`,
    `| --- | ---: | ---: | ---: | ---: |${alloc ? " ---: | ---: |" : ""}`,
  ];
  for (const { workload, mcpgen, echo } of results) {
    const cells = [workload, `${Math.round(mcpgen.cpuNs)} (${mcpgen.each.join(", ")})`, `${Math.round(echo.cpuNs)} (${echo.each.join(", ")})`];
    cells.push(`${(mcpgen.cpuNs / echo.cpuNs).toFixed(2)}×`, String(Math.round(mcpgen.cpuNs - echo.cpuNs)));
    if (alloc) cells.push(bytes(mcpgen), bytes(echo));
    lines.push(`| ${cells.join(" | ")} |`);
  }
  return `${lines.join("\n")}\n\n(CPU: process.cpuUsage() over the slices, so it includes V8's helper threads; each process: the median of ${SLICES} slices)\n`;
}

/** One peer in this process: set up, warm up, measure, print one JSON line. */
async function child(peer, workload, root, registryFile, batches, alloc) {
  // Its main thread on CPU 0 once Node's own threads are up (they keep every CPU): see bench/lib/pin.mjs.
  if (args.includes("--pin")) pinning()?.server(process.pid);
  const { line, check } = WORKLOADS[workload];
  let answered = 0;
  let wanted = 0;
  let wake;
  let last = ""; // the latest chunk written: the seeding reads its answer from it
  const output = new Writable({
    write(chunk, _encoding, callback) {
      const text = String(chunk);
      last = text;
      for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) answered++;
      if (answered >= wanted) wake?.();
      callback();
    },
  });
  const input = new PassThrough();
  /** Writes `text` (`count` requests) and resolves once as many answers came out. */
  const send = (text, count) =>
    new Promise((resolve) => {
      wanted = answered + count;
      wake = resolve;
      input.write(text);
    });
  const tasksFile = path.join(root, "tasks.json");

  if (peer === "mcpgen") {
    const runtime = pathToFileURL(path.join(root, "node_modules", "@mcpgen", "runtime", "dist", "main.js")).href;
    const { createServer, serveStdio, tuneHeap } = await import(runtime);
    const { registry } = await import(pathToFileURL(registryFile).href);
    tuneHeap(await import("node:v8"));
    const server = createServer(registry);
    await server.ready;
    serveStdio(server, { input, output });
    await send(`{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"${PROTOCOL_VERSION}","capabilities":{},"clientInfo":{"name":"mcpgen-bench","version":"1.0.0"}}}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n`, 1);
    for (let t = 0; t < SEARCH_TASKS; t++) {
      await send(`{"jsonrpc":"2.0","id":"c${t}","method":"tools/call","params":{"name":"create_task","arguments":{"title":"task ${t}","tags":["bench"]}}}\n`, 1);
    }
    // The store, oldest first, for the echo (as bench/run.mjs hands it over).
    await send(`{"jsonrpc":"2.0","id":"all","method":"tools/call","params":{"name":"list_tasks","arguments":{"limit":100}}}\n`, 1);
    writeFileSync(tasksFile, JSON.stringify([...JSON.parse(last).result.structuredContent.tasks].reverse()));
  } else {
    Object.defineProperty(process, "stdin", { value: input, configurable: true });
    Object.defineProperty(process, "stdout", { value: output, configurable: true });
    process.argv.push("--tasks", tasksFile);
    await import(pathToFileURL(path.join(REPO, "bench", "stdio", "servers", "echo.mjs")).href);
  }

  let id = 1;
  const run = async (count) => {
    for (let b = 0; b < count; b++) {
      let text = "";
      for (let k = 0; k < DEPTH; k++) text += `${line(id++)}\n`;
      await send(text, DEPTH);
    }
  };
  await run(Math.max(500, batches >> 2)); // warm: every path optimized
  await send(`${line(id)}\n`, 1);
  const answer = JSON.parse(last);
  if (!check(answer, id++)) throw new Error(`${peer} answered ${workload} wrongly: ${last.slice(0, 300)}`);
  const cpu = [];
  const wall = [];
  for (let s = 0; s < SLICES; s++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await run(batches);
    const used = process.cpuUsage(c0);
    cpu.push(((used.user + used.system) * 1000) / (batches * DEPTH));
    wall.push(((performance.now() - t0) * 1e6) / (batches * DEPTH));
  }
  const figures = { cpuNs: median(cpu), wallNs: median(wall) };
  if (alloc) figures.allocBytes = await allocatedPer(() => run(500), 500 * DEPTH);
  writeResult(JSON.stringify(figures));
}

/** The result line, on the real standard output (the echo's `process.stdout` is the in-memory one). */
function writeResult(text) {
  writeFileSync(1, `${text}\n`);
  process.exit(0);
}
