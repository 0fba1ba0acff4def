/**
 * What every HTTP peer does besides serving: print `READY <url>` on stdout once listening, and answer `gc`
 * lines on stdin (run a full GC when --expose-gc is on, then print `MEM <json of process.memoryUsage()>`), so
 * that the benchmark can measure memory per idle session the same way for every peer; `spaces` lines are
 * answered the same way without a GC, with the physical size of each V8 heap space added; `snapshot <file>`
 * writes a heap snapshot there.
 */
import { getHeapSpaceStatistics, writeHeapSnapshot } from "node:v8";

export function ready(url) {
  process.stdout.write(`READY ${url}\n`);
  let partial = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => {
    const lines = (partial + chunk).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      if (line.trim() === "gc") {
        globalThis.gc?.();
        globalThis.gc?.();
        process.stdout.write(`MEM ${JSON.stringify(process.memoryUsage())}\n`);
      } else if (line.startsWith("snapshot ")) {
        process.stdout.write(`MEM ${JSON.stringify({ file: writeHeapSnapshot(line.slice("snapshot ".length).trim()) })}\n`);
      } else if (line.trim() === "spaces") {
        // No GC: where the memory is right now (V8's heap spaces, committed bytes, and what lives outside them).
        const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.physical_space_size]));
        process.stdout.write(`MEM ${JSON.stringify({ ...process.memoryUsage(), spaces })}\n`);
      }
    }
  });
  process.stdin.on("end", () => process.exit(0));
}

export function flag(name) {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}
