/**
 * Tasks: a `tools/call` that answers at once with a task, followed with `tasks/*` requests. Two wire forms:
 *
 *   2025-11-25       the client asks (`params.task`); `tasks/get`, `tasks/result` (waits, then the tool's
 *                    result), `tasks/list`, `tasks/cancel`; `notifications/tasks/status` to the session;
 *                    capability `tasks`.
 *   2026-07-28 ext.  `io.modelcontextprotocol/tasks` (declared per request in the client's capabilities);
 *                    the server decides (run.ts); `tasks/get` inlines the result, error or `inputRequests`;
 *                    `tasks/update` answers them; `tasks/cancel` acknowledges; no `tasks/result` or
 *                    `tasks/list`; capability `extensions["io.modelcontextprotocol/tasks"]`.
 *
 * Records live in a `TaskStore` (store.ts; in memory by default), scoped to their owner: the authenticated
 * subject, else the 2025-era session, else (2026 era, no authentication) everyone who knows the task id —
 * an unguessable random UUID.
 */
import { ToolCall } from "../call.js";
import { errorResponse, resultResponse } from "../errors.js";
import { idJson } from "../json.js";
import { clip, isObject, META_CLIENT_CAPABILITIES, META_SERVER_INFO, type RequestId } from "../protocol.js";
import type { Connection, Reply, Server, Sink, ToolSlot } from "../server.js";
import { MemoryTaskStore } from "./memory.js";
import { RELATED_TASK, TaskRun, TaskSink } from "./run.js";
import { isTerminal, type TaskRecord, type TaskStore } from "./store.js";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

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

const TASK_METHODS = new Set(["tasks/get", "tasks/result", "tasks/list", "tasks/cancel", "tasks/update"]);

/** The methods this module answers. */
export function isTaskMethod(method: string): boolean {
  return TASK_METHODS.has(method);
}

export class Tasks {
  readonly store: TaskStore;
  readonly options: ResolvedTaskOptions;
  /** Tasks whose handler runs in this process, by id. */
  readonly running = new Map<string, TaskRun>();
  /** Whether any tool may run as a task (else no task capability and no task methods). */
  readonly enabled: boolean;
  readonly #sessions = new WeakMap<Connection, string>();

  constructor(
    private readonly server: Server,
    options: ResolvedTaskOptions,
  ) {
    this.options = options;
    this.store = options.store;
    this.enabled = [...server.slots.values()].some((slot) => taskSupport(slot) !== "forbidden");
  }

  /** The capabilities of this era, added to the server's. */
  capabilities(modern: boolean): Record<string, unknown> {
    if (!this.enabled) return {};
    if (modern) return { extensions: { [TASKS_EXTENSION]: {} } };
    return { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } };
  }

  /** `tools/call` of a tool with task support `optional` or `required`. */
  call(
    conn: Connection,
    slot: ToolSlot,
    id: RequestId,
    args: Record<string, unknown>,
    meta: Record<string, unknown> | undefined,
    version: string,
    modern: boolean,
    sink: Sink,
    params: Record<string, unknown> | undefined,
    track: (call: ToolCall) => void,
  ): Reply {
    const name = slot.entry.name;
    const support = taskSupport(slot);
    const requested = modern ? declaresExtension(meta) : isObject(params?.task);
    if (!requested) {
      if (support === "required") {
        if (modern) {
          return errorResponse(id, "missingRequiredClientCapability", `Tool "${clip(name)}" runs only as a task: declare the ${TASKS_EXTENSION} extension`, {
            requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
          });
        }
        return errorResponse(id, "methodNotFound", `Tool "${clip(name)}" runs only as a task: call it with params.task`);
      }
      const call = new ToolCall(conn, slot, id, args, meta, version, modern, sink, modern ? params : undefined);
      track(call);
      return call.run();
    }
    const ttl = modern ? undefined : (params?.task as Record<string, unknown>).ttl;
    const run = new TaskRun(this, conn, this.owner(conn, sink), name, modern, typeof ttl === "number" && ttl > 0 ? Math.floor(ttl) : undefined, (record) =>
      modern ? this.modernResponse(id, { resultType: "task", ...wireTask(record, true) }) : resultResponse(id, JSON.stringify({ task: wireTask(record, false) })),
    );
    const call = new ToolCall(conn, slot, id, args, meta, version, modern, new TaskSink(sink, run), modern ? params : undefined);
    call.taskRun = run;
    track(call);
    return run.start(call, !modern);
  }

  /** `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`, `tasks/update`. */
  request(conn: Connection, id: RequestId, method: string, params: Record<string, unknown> | undefined, meta: Record<string, unknown> | undefined, modern: boolean, sink: Sink): Reply {
    if (!this.enabled || (modern && (method === "tasks/result" || method === "tasks/list")) || (!modern && method === "tasks/update")) {
      return errorResponse(id, "methodNotFound", `Method not found: ${method}`);
    }
    if (modern && !declaresExtension(meta)) {
      return errorResponse(id, "missingRequiredClientCapability", `${method} needs the ${TASKS_EXTENSION} extension: declare it in the request's client capabilities`, {
        requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
      });
    }
    const owner = this.owner(conn, sink);
    if (method === "tasks/list") return this.list(id, owner, params?.cursor);
    const taskId = params?.taskId;
    if (typeof taskId !== "string") return errorResponse(id, "invalidParams", `Invalid params: ${method} needs a string "taskId"`);
    return this.store.get(taskId, owner).then((record): Reply => {
      if (!record) return errorResponse(id, "invalidParams", `Invalid params: no task "${clip(taskId)}"`);
      switch (method) {
        case "tasks/get":
          return modern ? this.modernResponse(id, detailedTask(record)) : resultResponse(id, JSON.stringify(wireTask(record, false)));
        case "tasks/result":
          return this.result(id, record, owner);
        case "tasks/cancel":
          return this.cancel(id, record, modern);
        default:
          return this.update(id, record, params?.inputResponses);
      }
    });
  }

  /** @internal Creates a task record for `owner` (run.ts, when a call becomes a task). */
  async create(owner: string, tool: string, requestedTtlMs: number | undefined): Promise<TaskRecord> {
    const now = this.options.now();
    const ttlMs = requestedTtlMs === undefined ? this.options.ttlMs : Math.min(requestedTtlMs, this.options.maxTtlMs);
    const record: TaskRecord = {
      taskId: crypto.randomUUID(),
      owner,
      tool,
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs,
      pollIntervalMs: this.options.pollIntervalMs,
    };
    await this.store.create(record);
    return record;
  }

  /** @internal A task changed: 2025 era, its session hears `notifications/tasks/status`. */
  changed(record: TaskRecord, conn: Connection | undefined): void {
    if (conn === undefined || conn.ephemeral || !conn.session) return;
    conn.notify(JSON.stringify({ jsonrpc: "2.0", method: "notifications/tasks/status", params: wireTask(record, false) }));
  }

  /** @internal */
  internalError(id: RequestId): string {
    return errorResponse(id, "internalError");
  }

  private async list(id: RequestId, owner: string, cursor: unknown): Promise<string> {
    if (cursor !== undefined && typeof cursor !== "string") return errorResponse(id, "invalidParams", "Invalid cursor");
    const page = await this.store.list(owner, cursor, this.options.pageSize);
    if (!page) return errorResponse(id, "invalidParams", "Invalid cursor");
    const tasks = page.tasks.map((record) => wireTask(record, false));
    return resultResponse(id, JSON.stringify(page.nextCursor === undefined ? { tasks } : { tasks, nextCursor: page.nextCursor }));
  }

  /** 2025 era: waits until the task is terminal, then answers what its call answered. */
  private async result(id: RequestId, record: TaskRecord, owner: string): Promise<string> {
    const done = isTerminal(record.status) ? record : await this.terminal(record.taskId, owner);
    if (!done) return errorResponse(id, "invalidParams", `Invalid params: no task "${clip(record.taskId)}"`);
    const related = { [RELATED_TASK]: { taskId: done.taskId } };
    if (done.status === "completed") {
      const result = done.result ?? {};
      return resultResponse(id, JSON.stringify({ ...result, _meta: { ...(isObject(result._meta) ? result._meta : {}), ...related } }));
    }
    if (done.status === "failed" && done.error) return `{"jsonrpc":"2.0","id":${idJson(id)},"error":${JSON.stringify({ ...done.error, data: { ...(isObject(done.error.data) ? done.error.data : {}), _meta: related } })}}`;
    return errorResponse(id, "invalidParams", `Invalid params: task "${done.taskId}" was cancelled and has no result`, { _meta: related });
  }

  /** Resolves with the task once it is terminal (or `undefined` once it is gone). */
  private terminal(taskId: string, owner: string): Promise<TaskRecord | undefined> {
    return new Promise((resolve) => {
      const unsubscribe = this.store.subscribe((record) => {
        if (record.taskId === taskId && isTerminal(record.status)) {
          unsubscribe();
          resolve(record.owner === owner ? record : undefined);
        }
      });
      // It may have ended between the caller's read and the subscription.
      void this.store.get(taskId, owner).then((record) => {
        if (!record || isTerminal(record.status)) {
          unsubscribe();
          resolve(record);
        }
      });
    });
  }

  private async cancel(id: RequestId, record: TaskRecord, modern: boolean): Promise<string> {
    if (isTerminal(record.status)) {
      if (modern) return this.modernResponse(id, { resultType: "complete" }); // idempotent in the extension
      return errorResponse(id, "invalidParams", `Invalid params: task "${record.taskId}" is ${record.status} already and cannot be cancelled`);
    }
    const cancelled = await this.store.update(record.taskId, { status: "cancelled", statusMessage: "Cancelled by the client", inputRequests: undefined });
    const run = this.running.get(record.taskId);
    run?.cancel();
    const now = cancelled ?? (await this.store.get(record.taskId, record.owner)) ?? record;
    if (cancelled) this.changed(cancelled, modern ? undefined : run?.conn);
    if (modern) return this.modernResponse(id, { resultType: "complete" });
    return resultResponse(id, JSON.stringify(wireTask(now, false)));
  }

  private async update(id: RequestId, record: TaskRecord, responses: unknown): Promise<string> {
    if (!isObject(responses)) return errorResponse(id, "invalidParams", 'Invalid params: tasks/update needs an "inputResponses" object');
    await this.running.get(record.taskId)?.answer(responses);
    return this.modernResponse(id, { resultType: "complete" });
  }

  private modernResponse(id: RequestId, result: Record<string, unknown>): string {
    return resultResponse(id, JSON.stringify({ ...result, _meta: { [META_SERVER_INFO]: this.server.registry.server } }));
  }

  private owner(conn: Connection, sink: Sink): string {
    const subject = sink.auth?.subject;
    if (subject !== undefined) return `subject:${subject}`;
    if (conn.session !== undefined && !conn.ephemeral) {
      let session = this.#sessions.get(conn);
      if (session === undefined) this.#sessions.set(conn, (session = crypto.randomUUID()));
      return `session:${session}`;
    }
    return "anonymous";
  }
}

export function taskSupport(slot: ToolSlot): "forbidden" | "optional" | "required" {
  return slot.entry.wire.execution?.taskSupport ?? "forbidden";
}

function declaresExtension(meta: Record<string, unknown> | undefined): boolean {
  const capabilities = meta?.[META_CLIENT_CAPABILITIES];
  return isObject(capabilities) && isObject(capabilities.extensions) && isObject(capabilities.extensions[TASKS_EXTENSION]);
}

/** The `Task` of either wire form. */
function wireTask(record: TaskRecord, modern: boolean): Record<string, unknown> {
  return {
    taskId: record.taskId,
    status: record.status,
    ...(record.statusMessage !== undefined && { statusMessage: record.statusMessage }),
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAt).toISOString(),
    ...(modern ? { ttlMs: record.ttlMs, pollIntervalMs: record.pollIntervalMs } : { ttl: record.ttlMs, pollInterval: record.pollIntervalMs }),
  };
}

/** 2026 extension: `tasks/get` — the task with its result, error or pending input requests inlined. */
function detailedTask(record: TaskRecord): Record<string, unknown> {
  return {
    resultType: "complete",
    ...wireTask(record, true),
    ...(record.status === "completed" && record.result !== undefined && { result: record.result }),
    ...(record.status === "failed" && record.error !== undefined && { error: record.error }),
    ...(record.status === "input_required" && record.inputRequests !== undefined && { inputRequests: record.inputRequests }),
  };
}
