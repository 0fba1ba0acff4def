/**
 * One `process.nextTick` entry kept for the life of the process.
 *
 * Node makes each entry of its tick queue with an object literal whose first two keys are computed (its async
 * id symbols), and V8 optimizes that literal for the hidden classes it has seen. Those classes live only as long
 * as some entry does. A full garbage collection while the queue is empty (the idle-time collections V8 runs a
 * few seconds after a server stops being busy, say) frees them, the next entries get new ones, and V8 then
 * builds every entry through its runtime for the rest of the process: the transports' requests went through
 * `nextTick` in Node's streams often enough for that to cost an HTTP server ~2 µs a request, 12 % of its
 * throughput at 32 connections (BENCHMARKS.md). An entry that stays reachable keeps those classes, so the
 * literal stays on its fast path whatever is collected.
 */
let asked = false;
let kept: object | undefined;

/**
 * Keeps a tick queue entry (once per process): inside a `nextTick` callback, the current resource is its entry.
 * Once start-up is over (`START_UP_MS`): loading node:async_hooks, which tells the resource, would cost a
 * server's start-up ~0.2 ms.
 */
export function keepTickEntry(): void {
  if (asked) return;
  asked = true;
  const timer = setTimeout(() => void import("node:async_hooks").then(({ executionAsyncResource }) => process.nextTick(() => (kept = executionAsyncResource()))), START_UP_MS);
  timer.unref();
}
/**
 * When start-up is over, for what a server may do later (here, and main()'s heap tuning and preload): long
 * enough for a client's first requests (initialize, the lists) to be answered first.
 */
export const START_UP_MS = 50;

/** The entry kept (for the tests). */
export function keptTickEntry(): object | undefined {
  return kept;
}
