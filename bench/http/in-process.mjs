/**
 * mcpgen's own work per HTTP request, without sockets: the example server's `HttpTransport` (what `serve()`
 * runs behind `node:http`) handed requests directly, as the `node:http` adapter hands them, four in flight at a
 * time. No system call, no wake-up, no HTTP parsing: what is left is the transport and the core (headers,
 * body parsing, session, method table, validation, handler, result, the SSE framing) and their garbage. Over
 * the socket the kernel's wake-ups make a request cost 20–60 µs, and a µs of this work costs two or three
 * there with a few connections (BENCHMARKS.md, "A few requests at a time"). In process the same work reads
 * within ~3 % from run to run, so a change of 50–100 ns shows in a few alternating runs.
 *
 *   node bench/http/in-process.mjs [--runs N] [--batches N] [--alloc] [--no-pin] [--json]
 *     --runs N      fresh processes per row, taking turns (default 3); medians over them
 *     --batches N   groups of four requests per measured slice (default 4000); five slices per process
 *     --alloc       also bytes allocated per request, from a sampling heap profile that counts collected objects
 *     --no-pin      lets the scheduler place each process; by default its main thread runs on CPU 0 (the
 *                   VM's CPUs need not be equally fast: bench/lib/pin.mjs)
 *
 * Rows: `tools/call add` in JSON and SSE response mode, in the 2025-11-25 era (one session, as bench/http/run.mjs
 * sends it) and the 2026-07-28 era (the envelope in `_meta` and the headers that go with it, bodies parsed by one
 * connection's parser as the adapter does). The process runs with the heap sizing `main()` gives a server
 * (`tuneHeap`). A benchmark, not a test: it prints figures and exits 0 whatever they are.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { allocatedPer } from "../lib/allocated.mjs";
import { inProcessOptions } from "../lib/in-process-options.mjs";
import { pinning } from "../lib/pin.mjs";
import { median } from "../lib/stats.mjs";
import { MODERN_META, MODERN_PROTOCOL_VERSION, PROTOCOL_VERSION } from "../stdio/driver.mjs";
import { setUpExample } from "../stdio/setup.mjs";

const REPO = path.resolve(fileURLToPath(import.meta.url), "../../..");
const IN_FLIGHT = 4;
const SLICES = 5;
const ROWS = [
  { mode: "json", era: "2025" },
  { mode: "json", era: "2026" },
  { mode: "sse", era: "2025" },
  { mode: "sse", era: "2026" },
];

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);

if (args[0] === "--child") await child(args[1], args[2], args[3], args[4], Number(option("--batches", 4000)), args.includes("--alloc"));
else await parent();

async function parent() {
  const { runs, batches, alloc, pin, json } = inProcessOptions(args, { prefix: "http in-process", usage: "usage: node bench/http/in-process.mjs [--runs N] [--batches N] [--alloc] [--no-pin] [--json]", batches: 4000 });
  const log = (line) => process.stderr.write(`http in-process: ${line}\n`);
  const root = mkdtempSync(path.join(os.tmpdir(), "mcpgen-bench-http-in-process-"));
  try {
    const { entry } = await setUpExample(REPO, root, { log });
    const registry = path.join(path.dirname(entry), "registry.gen.js");
    const figures = ROWS.map(() => []);
    for (let r = 0; r < runs; r++) {
      for (const [i, { mode, era }] of ROWS.entries()) {
        log(`${mode.toUpperCase()} ${era}: process ${r + 1}/${runs}`);
        const childArgs = [fileURLToPath(import.meta.url), "--child", mode, era, root, registry, "--batches", String(batches), ...(alloc ? ["--alloc"] : []), ...(pin ? ["--pin"] : [])];
        figures[i].push(JSON.parse(execFileSync(process.execPath, childArgs, { cwd: root, encoding: "utf8" })));
      }
    }
    const results = ROWS.map((row, i) => ({
      ...row,
      cpuNs: median(figures[i].map((f) => f.cpuNs)),
      each: figures[i].map((f) => Math.round(f.cpuNs)),
      allocBytes: figures[i][0].allocBytes === undefined ? undefined : median(figures[i].map((f) => f.allocBytes)),
    }));
    const report = { node: process.version, machine: `${os.cpus().length} × ${os.cpus()[0]?.model.trim()}`, runs, pinned: pin, batches, results };
    process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : table(report));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function table({ node, machine, runs, pinned, results }) {
  const alloc = results[0].allocBytes !== undefined;
  const lines = [
    `mcpgen's HTTP transport in process, tools/call add: node ${node}, ${machine}; ${runs} fresh processes per row, medians${pinned ? "; each one's main thread on CPU 0" : ""}`,
    "",
    `| response mode, era | CPU ns/request |${alloc ? " B/request |" : ""}`,
    `| --- | ---: |${alloc ? " ---: |" : ""}`,
  ];
  for (const { mode, era, cpuNs, each, allocBytes } of results) {
    const cells = [`${mode.toUpperCase()} ${era}`, `${Math.round(cpuNs)} (${each.join(", ")})`];
    if (alloc) cells.push(Math.round(allocBytes).toLocaleString("en-US"));
    lines.push(`| ${cells.join(" | ")} |`);
  }
  return `${lines.join("\n")}\n\n(CPU: process.cpuUsage() over the slices, so it includes V8's helper threads; each process: the median of ${SLICES} slices)\n`;
}

/** One row in this process: set up, warm up, measure, print one JSON line. */
async function child(mode, era, root, registryFile, batches, alloc) {
  // Its main thread on CPU 0 once Node's own threads are up (they keep every CPU): see bench/lib/pin.mjs.
  if (args.includes("--pin")) pinning()?.server(process.pid);
  const runtime = (file) => pathToFileURL(path.join(root, "node_modules", "@mcpgen", "runtime", "dist", file)).href;
  const { createServer, MessageParser, tuneHeap } = await import(runtime("index.js"));
  const { nodeTransport } = await import(runtime("http/node.js"));
  const { registry } = await import(pathToFileURL(registryFile).href);
  tuneHeap(await import("node:v8"));
  const server = createServer(registry);
  await server.ready;
  // The transport as serve() makes it (its options, the sessions' clock), without the node:http server.
  const { transport } = nodeTransport(server, { responseMode: mode, eventStore: false });
  const parser = new MessageParser(); // one keep-alive connection's, as the adapter keeps it

  /** One POST: resolves with its answer, an SSE stream's events read to its end as the adapter writes them. */
  const post = (body, headers) =>
    new Promise((resolve) => {
      const input = {
        method: "POST",
        path: "/mcp",
        header: (name) => headers[name],
        text: () => ({ then: (onText) => onText(body) }), // a thenable, as the adapter's `text()` gives (no promise)
        parse: (text) => parser.parse(text),
        onDisconnect() {},
      };
      transport.serve(input, (output) => {
        if (!output.stream) return resolve(output);
        let last = "";
        output.stream.attach({
          write: (chunk) => ((last = chunk), true),
          end: (chunk) => {
            output.body = chunk ?? last;
            resolve(output);
          },
        });
      });
    });

  const common = { host: "127.0.0.1", "content-type": "application/json", accept: "application/json, text/event-stream" };
  let headers;
  let body;
  if (era === "2025") {
    const initialize = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "bench", version: "1" } } };
    const opened = await post(JSON.stringify(initialize), common);
    const session = opened.headers["mcp-session-id"];
    if (!session) throw new Error(`initialize was answered ${opened.status}: ${String(opened.body).slice(0, 300)}`);
    headers = { ...common, "mcp-session-id": session, "mcp-protocol-version": PROTOCOL_VERSION };
    await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), headers);
    body = (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"add","arguments":{"a":${id},"b":0.5}}}`;
  } else {
    headers = { ...common, "mcp-protocol-version": MODERN_PROTOCOL_VERSION, "mcp-method": "tools/call", "mcp-name": "add" };
    body = (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"add","arguments":{"a":${id},"b":0.5},${MODERN_META}}}`;
  }

  let id = 1;
  /** One more request, its answer checked: before the runs and after them, so that no error path is measured. */
  const checked = async () => {
    const answer = await post(body(id), headers);
    if (answer.status !== 200 || !String(answer.body).includes(`"sum":${id + 0.5}`)) {
      throw new Error(`${mode} ${era}: request ${id} was answered ${answer.status}: ${String(answer.body).slice(0, 300)}`);
    }
    id++;
  };
  await checked();
  const run = async (groups) => {
    for (let g = 0; g < groups; g++) {
      const group = [];
      for (let k = 0; k < IN_FLIGHT; k++) group.push(post(body(id++), headers));
      await Promise.all(group);
    }
  };
  await run(Math.max(2000, batches >> 1)); // warm: every path optimized
  const cpu = [];
  for (let s = 0; s < SLICES; s++) {
    const c0 = process.cpuUsage();
    await run(batches);
    const used = process.cpuUsage(c0);
    cpu.push(((used.user + used.system) * 1000) / (batches * IN_FLIGHT));
  }
  await checked();
  const figures = { cpuNs: median(cpu) };
  if (alloc) figures.allocBytes = await allocatedPer(() => run(1000), 1000 * IN_FLIGHT);
  writeFileSync(1, `${JSON.stringify(figures)}\n`);
  process.exit(0);
}
