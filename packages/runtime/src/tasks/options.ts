/** The options of tasks: what can be set, resolved in one place (called from options.ts). */
import { MemoryTaskStore } from "./memory.js";
import type { TaskStore } from "./store.js";

export interface TaskOptions {
  /** Where tasks are kept (default: in this process's memory). */
  store?: TaskStore;
  /** A task's time to live when the client asks for none, in ms (default 3 600 000; `null`: no expiry). */
  ttlMs?: number | null;
  /** The longest time to live a client may ask for, in ms (default 86 400 000). */
  maxTtlMs?: number;
  /** How often clients should poll `tasks/get`, in ms (default 1000). */
  pollIntervalMs?: number;
  /** Tasks per page of `tasks/list` (default 100). */
  pageSize?: number;
  /** The clock of task timestamps and expiry, ms since the epoch (default `Date.now`). */
  now?: () => number;
}

export type ResolvedTaskOptions = Readonly<Required<TaskOptions>>;

export function resolveTaskOptions(options: TaskOptions = {}): ResolvedTaskOptions {
  const now = options.now ?? Date.now;
  const resolved = {
    store: options.store ?? new MemoryTaskStore({ now }),
    ttlMs: options.ttlMs === undefined ? 3_600_000 : options.ttlMs,
    maxTtlMs: options.maxTtlMs ?? 86_400_000,
    pollIntervalMs: options.pollIntervalMs ?? 1000,
    pageSize: options.pageSize ?? 100,
    now,
  };
  for (const key of ["maxTtlMs", "pollIntervalMs", "pageSize"] as const) {
    if (!Number.isSafeInteger(resolved[key]) || resolved[key] < 1) throw new RangeError(`tasks.${key} must be a positive integer, got ${resolved[key]}`);
  }
  if (resolved.ttlMs !== null && (!Number.isSafeInteger(resolved.ttlMs) || resolved.ttlMs < 1)) {
    throw new RangeError(`tasks.ttlMs must be a positive integer or null, got ${resolved.ttlMs}`);
  }
  return resolved;
}
