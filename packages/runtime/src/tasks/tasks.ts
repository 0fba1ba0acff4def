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
import { ToolCall, type ToolSlot } from "../call.js";
import type { Holder, Reply, RequestContext, Sink } from "../context.js";
import { refuse, resultResponse } from "../errors.js";
import { idJson } from "../json.js";
import type { InvocationHost } from "../invocation.js";
import { clip, isObject, META_CLIENT_CAPABILITIES, META_SERVER_INFO, type RequestId } from "../protocol.js";
import type { ResolvedTaskOptions } from "./options.js";
import { RELATED_TASK, TaskRun, TaskSink, type TaskBook, type TaskChannel } from "./run.js";
import { isTerminal, type TaskRecord, type TaskStore } from "./store.js";
import type { Bus } from "../state/bus.js";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
/** What a `tasks/result` wait ends with when it is stopped (cancelled, or its connection closed). */
const STOPPED = Symbol("stopped");

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
    private readonly serverInfo: Readonly<Record<string, unknown>> | undefined,
    /** Carries `tasks/update` answers to the instance whose handler waits for them (several instances). */
    private readonly bus?: Bus,
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

  /** `tools/call` of a tool with task support `optional` or `required`. */
  call(host: TaskHost, ctx: RequestContext, slot: ToolSlot, args: Record<string, unknown>): Reply {
    const { id, params, sink } = ctx;
    const name = slot.entry.name;
    const modern = ctx.era === "modern";
    const requested = modern ? declaresExtension(ctx.meta) : isObject(params?.task);
    if (!requested) {
      if (slot.taskSupport === "required") {
        if (modern) {
          return refuse(sink, id, "missingRequiredClientCapability", `Tool "${clip(name)}" runs only as a task: declare the ${TASKS_EXTENSION} extension`, {
            requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
          });
        }
        return refuse(sink, id, "methodNotFound", `Tool "${clip(name)}" runs only as a task: call it with params.task`);
      }
      return host.start(ctx, new ToolCall(ctx, slot, args));
    }
    const ttl = modern ? undefined : (params?.task as Record<string, unknown>).ttl;
    const respond = (record: TaskRecord): string =>
      modern ? this.modernResponse(id, { resultType: "task", ...wireTask(record, true) }) : resultResponse(id, JSON.stringify({ task: wireTask(record, false) }));
    const run = new TaskRun(this, host, this.owner(host, sink), name, modern, typeof ttl === "number" && ttl > 0 ? Math.floor(ttl) : undefined, respond, sink);
    const tasked: RequestContext = { ...ctx, sink: new TaskSink(sink, run) };
    const call = run.attach(new ToolCall(tasked, slot, args));
    call.taskRun = run;
    // 2025 era: the client asked for a task, which exists before the handler runs; 2026: see run.ts.
    return run.start(call, host.start(tasked, () => (modern ? call : run.begin(call))));
  }

  /** `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel` (the method table gives each its eras), `tasks/update`. */
  request(host: TaskHost, ctx: RequestContext): Reply {
    const { id, method, params, sink } = ctx;
    const modern = ctx.era === "modern";
    if (!this.enabled) return refuse(sink, id, "methodNotFound", `Method not found: ${method}`);
    if (modern && !declaresExtension(ctx.meta)) {
      return refuse(sink, id, "missingRequiredClientCapability", `${method} needs the ${TASKS_EXTENSION} extension: declare it in the request's client capabilities`, {
        requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
      });
    }
    const owner = this.owner(host, sink);
    if (method === "tasks/list") return this.list(sink, id, owner, params?.cursor);
    const taskId = params?.taskId;
    if (typeof taskId !== "string") return refuse(sink, id, "invalidParams", `Invalid params: ${method} needs a string "taskId"`);
    return this.store.get(taskId, owner).then((record): Reply => {
      if (!record) return refuse(sink, id, "invalidParams", `Invalid params: no task "${clip(taskId)}"`);
      switch (method) {
        case "tasks/get":
          return modern ? this.modernResponse(id, detailedTask(record)) : resultResponse(id, JSON.stringify(wireTask(record, false)));
        case "tasks/result":
          return this.result(host, ctx, record, owner);
        case "tasks/cancel":
          return this.cancel(sink, id, record, modern);
        default:
          return this.update(sink, id, record, params?.inputResponses);
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
  changed(record: TaskRecord, conn: TaskChannel | undefined): void {
    if (conn === undefined || conn.ephemeral || !conn.session) return;
    conn.notify(JSON.stringify({ jsonrpc: "2.0", method: "notifications/tasks/status", params: wireTask(record, false) }), false);
  }

  private async list(sink: Sink, id: RequestId, owner: string, cursor: unknown): Promise<string> {
    if (cursor !== undefined && typeof cursor !== "string") return refuse(sink, id, "invalidParams", "Invalid cursor");
    const page = await this.store.list(owner, cursor, this.options.pageSize);
    if (!page) return refuse(sink, id, "invalidParams", "Invalid cursor");
    const tasks = page.tasks.map((record) => wireTask(record, false));
    return resultResponse(id, JSON.stringify(page.nextCursor === undefined ? { tasks } : { tasks, nextCursor: page.nextCursor }));
  }

  /**
   * 2025 era: waits until the task is terminal, then answers what its call answered. The request is held open
   * on its connection meanwhile: cancelled, or its connection closing, it stops waiting and gets no response.
   */
  private async result(host: TaskHost, ctx: RequestContext, record: TaskRecord, owner: string): Promise<string | undefined> {
    const { id, sink } = ctx;
    let done: TaskRecord | undefined = record;
    if (!isTerminal(record.status)) {
      const wait = this.terminal(record, owner);
      const refused = host.hold(ctx, { cancel: wait.stop, close: wait.stop }, wait.ended);
      if (refused !== undefined) {
        wait.stop();
        return refused;
      }
      const ended = await wait.ended;
      if (ended === STOPPED) return undefined;
      done = ended;
    }
    if (!done) return refuse(sink, id, "invalidParams", `Invalid params: no task "${clip(record.taskId)}"`);
    const related = { [RELATED_TASK]: { taskId: done.taskId } };
    if (done.status === "completed") {
      const result = done.result ?? {};
      return resultResponse(id, JSON.stringify({ ...result, _meta: { ...(isObject(result._meta) ? result._meta : {}), ...related } }));
    }
    if (done.status === "failed" && done.error) return `{"jsonrpc":"2.0","id":${idJson(id)},"error":${JSON.stringify({ ...done.error, data: { ...(isObject(done.error.data) ? done.error.data : {}), _meta: related } })}}`;
    return refuse(sink, id, "invalidParams", `Invalid params: task "${done.taskId}" was cancelled and has no result`, { _meta: related });
  }

  /**
   * A wait for the task to be terminal: `ended` resolves with it (or `undefined` once it is gone: expired, by
   * its ttl), or with `STOPPED` once `stop` is called.
   */
  private terminal(task: TaskRecord, owner: string): { ended: Promise<TaskRecord | undefined | typeof STOPPED>; stop: () => void } {
    const { taskId } = task;
    let stop = (): void => {};
    const ended = new Promise<TaskRecord | undefined | typeof STOPPED>((resolve) => {
      let expiry: ReturnType<typeof setTimeout> | undefined;
      const unlisten = this.store.subscribe((record) => {
        if (record.taskId === taskId && isTerminal(record.status)) {
          unsubscribe();
          resolve(record.owner === owner ? record : undefined);
        }
      });
      const unsubscribe = (): void => {
        unlisten();
        if (expiry !== undefined) clearTimeout(expiry);
      };
      if (task.ttlMs !== null) {
        // A task that never ends is gone at its expiry: the wait ends then, it does not hold a listener forever.
        expiry = setTimeout(() => {
          unsubscribe();
          resolve(undefined);
        }, Math.max(0, task.createdAt + task.ttlMs - this.options.now()));
        expiry.unref?.();
      }
      stop = () => {
        unsubscribe();
        resolve(STOPPED);
      };
      // It may have ended between the caller's read and the subscription.
      void this.store.get(taskId, owner).then((record) => {
        if (!record || isTerminal(record.status)) {
          unsubscribe();
          resolve(record);
        }
      });
    });
    return { ended, stop };
  }

  private async cancel(sink: Sink, id: RequestId, record: TaskRecord, modern: boolean): Promise<string> {
    if (isTerminal(record.status)) {
      if (modern) return this.modernResponse(id, { resultType: "complete" }); // idempotent in the extension
      return refuse(sink, id, "invalidParams", `Invalid params: task "${record.taskId}" is ${record.status} already and cannot be cancelled`);
    }
    const cancelled = await this.store.update(record.taskId, { status: "cancelled", statusMessage: "Cancelled by the client", inputRequests: undefined });
    const run = this.running.get(record.taskId);
    run?.cancel();
    const now = cancelled ?? (await this.store.get(record.taskId, record.owner)) ?? record;
    if (cancelled) this.changed(cancelled, modern ? undefined : run?.conn);
    if (modern) return this.modernResponse(id, { resultType: "complete" });
    return resultResponse(id, JSON.stringify(wireTask(now, false)));
  }

  private async update(sink: Sink, id: RequestId, record: TaskRecord, responses: unknown): Promise<string> {
    if (!isObject(responses)) return refuse(sink, id, "invalidParams", 'Invalid params: tasks/update needs an "inputResponses" object');
    const run = this.running.get(record.taskId);
    // The handler waits in this process, or (shared store) maybe in another one, which hears it on the bus.
    if (run) await run.answer(responses);
    else await this.bus?.publish(TASK_ANSWERS, JSON.stringify({ taskId: record.taskId, responses }));
    return this.modernResponse(id, { resultType: "complete" });
  }

  private modernResponse(id: RequestId, result: Record<string, unknown>): string {
    return resultResponse(id, JSON.stringify(this.serverInfo ? { ...result, _meta: { [META_SERVER_INFO]: this.serverInfo } } : result));
  }

  /** Whose tasks a 2026-era `subscriptions/listen` may watch: none unless it declares the extension. */
  watcher(host: TaskHost, ctx: RequestContext): string | undefined {
    return this.enabled && declaresExtension(ctx.meta) ? this.owner(host, ctx.sink) : undefined;
  }

  private owner(conn: TaskHost, sink: Sink): string {
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
const TASK_ANSWERS = "tasks:answers";

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

/** 2026 extension: `notifications/tasks` — the task as `tasks/get` shows it, as the members of its params. */
export function taskMembers(record: TaskRecord): string {
  const { resultType: _, ...task } = detailedTask(record);
  return `,${JSON.stringify(task).slice(1, -1)}`;
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
