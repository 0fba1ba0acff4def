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
 *
 * `Tasks`, made at start-up, holds what a server's tasks share and announces them; the requests themselves
 * are answered by requests.ts and run.ts, which load with the tool-call runtime (tool-calls.ts).
 */
import type { Holder, RequestContext, Sink } from "../context.js";
import type { InvocationHost } from "../invocation.js";
import { isObject, META_CLIENT_CAPABILITIES } from "../protocol.js";
import type { ToolSlot } from "../tool-slot.js";
import type { ResolvedTaskOptions } from "./options.js";
import type { TaskBook, TaskChannel, TaskRun } from "./run.js";
import type { TaskRecord, TaskStore } from "./store.js";
import type { Bus } from "../state/bus.js";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The connection a `tools/call` or `tasks/*` request came in on (the method table's host). */
export interface TaskHost extends TaskChannel, InvocationHost, Holder {}

export class Tasks implements TaskBook {
  readonly store: TaskStore;
  readonly options: ResolvedTaskOptions;
  /** Tasks whose handler runs in this process, by id. */
  readonly running = new Map<string, TaskRun>();
  /** Whether any tool may run as a task (else no task capability and no task methods). */
  readonly enabled: boolean;
  readonly #sessions = new WeakMap<TaskHost, string>();

  constructor(
    tools: ReadonlyMap<string, ToolSlot>,
    options: ResolvedTaskOptions,
    /** What 2026-era results say of the server in `_meta` (none when undefined). */
    readonly serverInfo: Readonly<Record<string, unknown>> | undefined,
    /** Carries `tasks/update` answers to the instance whose handler waits for them (several instances). */
    readonly bus?: Bus,
  ) {
    this.options = options;
    this.store = this.options.store;
    this.enabled = [...tools.values()].some((slot) => slot.taskSupport !== "forbidden");
    // A task cancelled anywhere (another process sharing the store) stops its handler here.
    if (this.enabled) {
      this.store.subscribe((record) => {
        if (record.status === "cancelled") this.running.get(record.taskId)?.cancel();
      });
      bus
        ?.subscribe(TASK_ANSWERS, (text) => {
          const { taskId, responses } = JSON.parse(text) as { taskId: string; responses: Record<string, unknown> };
          void this.running.get(taskId)?.answer(responses);
        })
        .catch((error: unknown) => console.error("[mcpgen] could not hear task answers from other instances:", error));
    }
  }

  /** The capabilities of this era, added to the server's. */
  capabilities(modern: boolean): Record<string, unknown> {
    if (!this.enabled) return {};
    if (modern) return { extensions: { [TASKS_EXTENSION]: {} } };
    return { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } };
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
  changed(record: TaskRecord, conn: TaskChannel | undefined): void {
    if (conn === undefined || conn.ephemeral || !conn.session) return;
    conn.notify(JSON.stringify({ jsonrpc: "2.0", method: "notifications/tasks/status", params: wireTask(record, false) }), false);
  }

  /** Whose tasks a 2026-era `subscriptions/listen` may watch: none unless it declares the extension. */
  watcher(host: TaskHost, ctx: RequestContext): string | undefined {
    return this.enabled && declaresExtension(ctx.meta) ? this.owner(host, ctx.sink) : undefined;
  }

  /** @internal Whose tasks a request may see: its subject, else its 2025-era session, else everyone's. */
  owner(conn: TaskHost, sink: Sink): string {
    const subject = sink.auth?.subject;
    if (subject !== undefined) return `subject:${subject}`;
    if (conn.session !== undefined && !conn.ephemeral) {
      if (conn.sessionId !== undefined) return `session:${conn.sessionId}`;
      let session = this.#sessions.get(conn);
      if (session === undefined) this.#sessions.set(conn, (session = crypto.randomUUID()));
      return `session:${session}`;
    }
    return "anonymous";
  }
}

/** The bus channel of `tasks/update` answers for tasks running on another instance. */
export const TASK_ANSWERS = "tasks:answers";

/** The request declares the 2026 tasks extension in its client capabilities. */
export function declaresExtension(meta: Record<string, unknown> | undefined): boolean {
  const capabilities = meta?.[META_CLIENT_CAPABILITIES];
  return isObject(capabilities) && isObject(capabilities.extensions) && isObject(capabilities.extensions[TASKS_EXTENSION]);
}

/** The `Task` of either wire form. */
export function wireTask(record: TaskRecord, modern: boolean): Record<string, unknown> {
  return {
    taskId: record.taskId,
    status: record.status,
    ...(record.statusMessage !== undefined && { statusMessage: record.statusMessage }),
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAt).toISOString(),
    ...(modern ? { ttlMs: record.ttlMs, pollIntervalMs: record.pollIntervalMs } : { ttl: record.ttlMs, pollInterval: record.pollIntervalMs }),
  };
}

/** 2026 extension: `notifications/tasks` — the task as `tasks/get` shows it, as the members of its params. */
export function taskMembers(record: TaskRecord): string {
  const { resultType: _, ...task } = detailedTask(record);
  return `,${JSON.stringify(task).slice(1, -1)}`;
}

/** 2026 extension: `tasks/get` — the task with its result, error or pending input requests inlined. */
export function detailedTask(record: TaskRecord): Record<string, unknown> {
  return {
    resultType: "complete",
    ...wireTask(record, true),
    ...(record.status === "completed" && record.result !== undefined && { result: record.result }),
    ...(record.status === "failed" && record.error !== undefined && { error: record.error }),
    ...(record.status === "input_required" && record.inputRequests !== undefined && { inputRequests: record.inputRequests }),
  };
}
