/**
 * Preloaded into a benchmarked server (`node --import bench/lib/gc-count.mjs server.js`, by `bench/run.mjs
 * --gc`): counts the process's garbage collections. On SIGUSR2 it writes what it counted since the last
 * report to stderr, as one line `mcpgen-bench-gc {json}`, and starts again:
 *   young   [count, pause ms] of young-generation collections (scavenges)
 *   other   [count, pause ms] of the rest (mark-compact, incremental steps, weak callbacks)
 */
import { constants, PerformanceObserver } from "node:perf_hooks";

let counts = { young: [0, 0], other: [0, 0] };
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR ? "young" : "other";
    counts[kind][0]++;
    counts[kind][1] += entry.duration;
  }
}).observe({ entryTypes: ["gc"] });

process.on("SIGUSR2", () => {
  process.stderr.write(`mcpgen-bench-gc ${JSON.stringify(counts)}\n`);
  counts = { young: [0, 0], other: [0, 0] };
});
