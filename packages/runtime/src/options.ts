/**
 * The server's options: what can be set, and the one place they are resolved into a fully-defaulted value.
 */
import type { RequestId } from "./protocol.js";
import type { Bus } from "./state/bus.js";
import { resolveTaskOptions, type ResolvedTaskOptions, type TaskOptions } from "./tasks/options.js";

export interface ErrorContext {
  /** What failed: a tool's handler, a resource's (or template's), a prompt's, or a completion handler. */
  readonly kind: "tool" | "resource" | "prompt" | "completion";
  /** The name of the tool (or resource, template, prompt; `<name>.<argument>` for a completion). */
  readonly tool: string;
  readonly requestId: RequestId;
}

export interface ServerOptions {
  /**
   * Entries per page of `tools/list`, `resources/list`, `resources/templates/list` and `prompts/list`.
   * Default: every entry in one page, as the official SDKs do (some clients read only the first page).
   */
  pageSize?: number;
  /**
   * 2026 era: `ttlMs` on `server/discover`, the list results and reads of inline resources (default 300 000).
   * Resources read by a handler default to 0 (the handler may return its own `ttlMs`).
   */
  ttlMs?: number;
  /** 2026 era: `cacheScope` of those results (default `"public"`: the registry is the same for every caller). */
  cacheScope?: "public" | "private";
  /** The most resource URIs one 2025-era session, or one 2026-era listen stream, may subscribe to (default 1000). */
  maxSubscriptions?: number;
  /**
   * Receives failures that the client only sees summarized (handler crashes, invalid handler output).
   * Default: `console.error`, which the stdio entry point keeps on stderr.
   */
  onError?: (error: unknown, context: ErrorContext) => void;
  /**
   * 2026 era: the HMAC key sealing `requestState` (answers of earlier `ctx.elicit` / `ctx.sample` rounds).
   * Default: random per process; give every instance behind a load balancer the same secret.
   */
  requestStateSecret?: string | Uint8Array;
  /**
   * 2026 era: the server info every result carries in `_meta` (`io.modelcontextprotocol/serverInfo`):
   * `"brief"` (default) sends the `name` and `version` that identify the server, `"full"` everything the
   * server.json gives (title, description, icons, website…), `"none"` leaves it out. `server/discover`
   * always carries the full info.
   */
  resultServerInfo?: "brief" | "full" | "none";
  /** 2026 era: how long a `requestState` stays valid, in ms (default 600 000). */
  requestStateTtlMs?: number;
  /** The time in ms, for `requestState` expiry (default `Date.now`; tests advance their own). */
  clock?: () => number;
  /** Tools with `execution.taskSupport`: where tasks are kept, their time to live, poll interval (clock: `clock`). */
  tasks?: TaskOptions;
  /**
   * Several instances of this server: change notifications (`resourceUpdated`, `listChanged`) made on any
   * instance go through the bus and reach the subscribers of every instance (default: this process only).
   */
  bus?: Bus;
}

type Resolved = Required<Omit<ServerOptions, "tasks" | "bus" | "requestStateSecret">> & {
  tasks: ResolvedTaskOptions;
  bus: Bus | undefined;
  /** Undefined: a random key, drawn on the first use (only a 2026 `input_required` round needs one). */
  requestStateSecret: string | Uint8Array | undefined;
};
export type ResolvedServerOptions = Readonly<Resolved>;

/** Fills in defaults and checks ranges; the only place options are resolved. */
export function resolveServerOptions(options: ServerOptions = {}): ResolvedServerOptions {
  const clock = options.clock ?? Date.now;
  const resolved: Resolved = {
    pageSize: options.pageSize ?? Number.POSITIVE_INFINITY,
    ttlMs: options.ttlMs ?? 300_000,
    cacheScope: options.cacheScope ?? "public",
    maxSubscriptions: options.maxSubscriptions ?? 1000,
    onError: options.onError ?? ((error, { kind, tool }) => console.error(`[mcpgen] ${kind} "${tool}" failed:`, error)),
    requestStateSecret: options.requestStateSecret,
    resultServerInfo: options.resultServerInfo ?? "brief",
    requestStateTtlMs: options.requestStateTtlMs ?? 600_000,
    clock,
    tasks: resolveTaskOptions({ now: clock, ...options.tasks }),
    bus: options.bus,
  };
  if ((!Number.isSafeInteger(resolved.pageSize) && resolved.pageSize !== Number.POSITIVE_INFINITY) || resolved.pageSize < 1) {
    throw new RangeError(`pageSize must be a positive integer (or Infinity), got ${resolved.pageSize}`);
  }
  if (!Number.isSafeInteger(resolved.ttlMs) || resolved.ttlMs < 0) {
    throw new RangeError(`ttlMs must be a non-negative integer, got ${resolved.ttlMs}`);
  }
  if (!Number.isSafeInteger(resolved.maxSubscriptions) || resolved.maxSubscriptions < 0) {
    throw new RangeError(`maxSubscriptions must be a non-negative integer, got ${resolved.maxSubscriptions}`);
  }
  if (!["brief", "full", "none"].includes(resolved.resultServerInfo)) {
    throw new RangeError(`resultServerInfo must be "brief", "full" or "none", got ${String(resolved.resultServerInfo)}`);
  }
  if (!Number.isSafeInteger(resolved.requestStateTtlMs) || resolved.requestStateTtlMs < 1) {
    throw new RangeError(`requestStateTtlMs must be a positive integer, got ${resolved.requestStateTtlMs}`);
  }
  return resolved;
}
