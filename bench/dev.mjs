/**
 * `npm run bench:dev`: the authoring loop's latency. On a copy of the example (schemas/ and src/handlers/,
 * in .tmp/ inside the repository so that the copy resolves @mcpgen/runtime), `mcpgen dev` runs over stdio
 * with the official SDK client connected to it. Each run edits one tool's description and measures the time
 * from the write until `tools/list`, polled every 10 ms, shows the edit. Prints each run, then the median,
 * and dev's own figures (rebuild, restart) for the same edits. A benchmark, not a test: it exits 0 whatever
 * the figures are (the target is 150 ms on a quiet machine).
 *
 *   node bench/dev.mjs [--runs N] [--typecheck] [--verbose]
 *
 * --typecheck keeps dev's background type check on (off by default: it runs after the restart and does not
 * change the figure, but it competes for the CPU with the next edit on a small machine).
 * --verbose prints what dev said during each edit.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const runs = args.includes("--runs") ? Number(args[args.indexOf("--runs") + 1]) : 7;
const typecheck = args.includes("--typecheck");
const verbose = args.includes("--verbose");

mkdirSync(path.join(REPO, ".tmp"), { recursive: true });
const dir = mkdtempSync(path.join(REPO, ".tmp", "bench-dev-"));
cpSync(path.join(REPO, "schemas"), path.join(dir, "schemas"), { recursive: true });
cpSync(path.join(REPO, "src/handlers"), path.join(dir, "src/handlers"), { recursive: true });
cpSync(path.join(REPO, "tsconfig.example.json"), path.join(dir, "tsconfig.json"));

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [path.join(REPO, "bin/mcpgen.js"), "dev", ...(typecheck ? [] : ["--no-typecheck"])],
  cwd: dir,
  stderr: "pipe",
});
let log = "";
transport.stderr.on("data", (chunk) => (log += chunk.toString()));
const client = new Client({ name: "bench-dev", version: "1" });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  let started = performance.now();
  await client.connect(transport);
  const tools = await client.listTools();
  console.log(`mcpgen dev on the example (${tools.tools.length} tools): first tools/list after ${Math.round(performance.now() - started)} ms (a cold build and start)`);

  const file = path.join(dir, "schemas/tools/add.json");
  const original = JSON.parse(readFileSync(file, "utf8"));
  const figures = [];
  for (let run = 1; run <= runs; run++) {
    await sleep(1000); // an edit every second at most: the previous round and the spare server settle
    const description = `${original.description} (edit ${run})`;
    const before = log.length;
    started = performance.now();
    writeFileSync(file, JSON.stringify({ ...original, description }, null, 2));
    for (let polls = 0; ; polls++) {
      if (polls > 1000) throw new Error("the edit never showed in tools/list");
      const listed = await client.listTools().catch(() => undefined);
      if (listed?.tools.find((t) => t.name === "add")?.description === description) break;
      await sleep(10);
    }
    const ms = performance.now() - started;
    figures.push(ms);
    await sleep(50);
    const own = log.slice(before);
    const rebuilt = /rebuilt in (\d+) ms/.exec(own)?.[1];
    const restarted = /restarted in (\d+) ms/.exec(own)?.[1];
    console.log(`  edit ${run}: ${Math.round(ms)} ms until tools/list shows it (dev: rebuilt in ${rebuilt ?? "?"} ms, restarted in ${restarted ?? "?"} ms)`);
    if (verbose) process.stdout.write(own.replace(/^/gm, "    "));
  }
  console.log(`median of ${runs} edits: ${Math.round(median(figures))} ms (min ${Math.round(Math.min(...figures))}, max ${Math.round(Math.max(...figures))}; target 150 ms on a quiet machine)`);
  // The figure depends on what else the machine runs: say how busy it was.
  console.log(`${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" / ")} (1 / 5 / 15 min), Node ${process.version}`);
} finally {
  await client.close();
  rmSync(dir, { recursive: true, force: true });
}
