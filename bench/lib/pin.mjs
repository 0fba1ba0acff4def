/**
 * Keeps the peers of a benchmark on the same CPU: each server's main thread on one CPU, the load generator's
 * on another (`taskset -p`, one thread: V8's and libuv's helper threads keep every CPU, so a peer that
 * collects garbage on several threads still can).
 *
 * On a VM the CPUs need not be equal: the host may run other work beside one of them, and a process tends to
 * stay on the CPU it started on. On the machine of BENCHMARKS.md one CPU ran the same work 1.4–1.6× slower
 * than the other for minutes at a time, so with the scheduler free to place them, a run's ratios said which
 * peer had drawn the slower CPU (mcpgen ÷ echo at four connections: 0.51–0.94× of the requests in four runs
 * of one build) more than how the peers compare.
 *
 * `pinning()` is undefined where it cannot be done (one CPU, no `taskset`), and then nothing is pinned.
 */
import { execFileSync } from "node:child_process";
import os from "node:os";

/** `{ server(pid), self(), release() }`, or undefined when the CPUs cannot be chosen here. */
export function pinning() {
  if (os.availableParallelism() < 2) return undefined;
  let all;
  try {
    all = cpuList(process.pid);
  } catch {
    return undefined;
  }
  if (!all) return undefined;
  const set = (cpus, pid) => execFileSync("taskset", ["-p", "-c", cpus, String(pid)], { stdio: "ignore" });
  return {
    description: "every server's main thread on CPU 0, the load generator's on CPU 1 (taskset)",
    /** A server's main thread to CPU 0 (its other threads as they were). */
    server: (pid) => set("0", pid),
    /** This process's main thread to CPU 1. */
    self: () => set("1", process.pid),
    /**
     * This process's main thread back on every CPU it had: before starting a process, whose threads would
     * otherwise all inherit CPU 1.
     */
    release: () => set(all, process.pid),
  };
}

/** The CPUs `pid`'s main thread may run on, as `taskset` lists them (`0-1`); throws without `taskset`. */
export function cpuList(pid) {
  return /list:\s*(\S+)/.exec(execFileSync("taskset", ["-p", "-c", String(pid)], { encoding: "utf8" }))?.[1];
}
