/**
 * One `tools/call` of a task-supporting tool, from the request to its task's terminal state.
 *
 *   2025-11-25 (the client asked for a task with `params.task`): the task is created first and answered
 *   with `CreateTaskResult`, then the handler runs; server→client requests and progress go to the session.
 *   2026-07-28 extension (the client declared `io.modelcontextprotocol/tasks`): the server decides. The
 *   handler starts at once; the call becomes a task when it asks the client for input, or when it has not
 *   finished by the next turn of the event loop — a handler that is done by then answers directly. Input
 *   asked with `{ beforeTask: true }` before that is gathered with `input_required` rounds (no task yet).
 *   Inside a task, asks wait for `tasks/update` (status `input_required`, the requests in `inputRequests`).
 *
 * The handler is the same function either way: `TaskRun` only hooks where its messages go, how it asks for
 * input, and what becomes of its response (the task's result, or `failed` with a protocol error).
 */
import type { Cancellable, Channel, Reply, Sink, TaskHooks } from "../context.js";
import { refuse, type ErrorKind } from "../errors.js";
import type { AuthInfo } from "../handler.js";
import { isAnswer, type InputMethod } from "../input.js";
import { isObject, META_SERVER_INFO } from "../protocol.js";
import type { SessionTarget } from "../subscriptions.js";
import type { TaskPatch, TaskRecord, TaskStore } from "./store.js";

/** The connection a task's call came in on, as the task uses it. */
export type TaskChannel = Channel & SessionTarget;

/** What a run uses of the task book (tasks.ts). */
export interface TaskBook {
  readonly store: TaskStore;
  /** Tasks whose handler runs in this process, by id. */
  readonly running: Map<string, TaskRun>;
  create(owner: string, tool: string, requestedTtlMs: number | undefined): Promise<TaskRecord>;
  changed(record: TaskRecord, conn: TaskChannel | undefined): void;
}

export const RELATED_TASK = "io.modelcontextprotocol/related-task";

interface PendingAsk {
  readonly method: InputMethod;
  readonly params: Record<string, unknown>;
  resolve(answer: unknown): void;
  reject(error: unknown): void;
}

export class TaskRun implements TaskHooks {
  #call: Cancellable | undefined;
  #respond: (response: string | undefined) => void = () => {};
  #adopting: Promise<boolean> | undefined;
  #record: TaskRecord | undefined;
  /** A `beforeTask` ask is under way: the call answers with `input_required` instead of becoming a task. */
  #held = false;
  #finished = false;
  #gate: ReturnType<typeof setTimeout> | undefined;
  #writes: Promise<unknown> = Promise.resolve();
  readonly #pending = new Map<string, PendingAsk>();
  #waiting = 0;
  readonly #queued: string[] = [];

  constructor(
    readonly tasks: TaskBook,
    readonly conn: TaskChannel,
    readonly owner: string,
    readonly tool: string,
    readonly modern: boolean,
    /** What the request asked for (2025: `params.task.ttl`), before the server's bounds. */
    readonly requestedTtlMs: number | undefined,
    readonly respondTo: (record: TaskRecord) => string,
    /** The request's own sink (told the kind of an error answer). */
    readonly sink: Sink,
  ) {}

  get adopted(): boolean {
    return this.#adopting !== undefined;
  }

  get taskId(): string | undefined {
    return this.#record?.taskId;
  }

  /**
   * Follows `call`, whose run answers `reply`; resolves to the response of the `tools/call` request (a task,
   * or the call's own answer).
   */
  start(call: Cancellable, reply: Reply): Promise<string | undefined> {
    this.#call = call;
    return new Promise((resolve) => {
      this.#respond = resolve;
      void Promise.resolve(reply).then((response) => {
        if (this.#gate !== undefined) clearTimeout(this.#gate);
        void this.finish(response);
      });
    });
  }

  /** The call this run follows; set before the call runs, as its handler may ask for input at once. */
  attach<C extends Cancellable>(call: C): C {
    this.#call = call;
    return call;
  }

  /** 2025 era: the task exists before its handler runs. */
  begin<C extends Cancellable>(call: C): C {
    this.#call = call;
    void this.adopt();
    return call;
  }

  started(): void {
    if (this.adopted) return;
    // What the handler does before the next turn of the event loop decides: done (a direct answer), asking
    // for input before the task (an `input_required` round) or anything else (a task).
    this.#gate = setTimeout(() => {
      if (!this.#held && !this.#finished) void this.adopt();
    }, 0);
  }

  ask(method: InputMethod, key: string, params: Record<string, unknown>, beforeTask: boolean): Promise<unknown> | undefined {
    if (!this.modern) return undefined;
    if (beforeTask && !this.adopted) {
      this.#held = true;
      return undefined;
    }
    void this.adopt();
    return new Promise((resolve, reject) => {
      this.#pending.set(key, { method, params, resolve, reject });
      this.#write(() => ({ status: "input_required", inputRequests: this.#inputRequests() }));
    });
  }

  waiting(answered: Promise<unknown>): void {
    if (!this.adopted) return;
    if (this.#waiting++ === 0) this.#write(() => ({ status: "input_required" }));
    const done = (): void => {
      if (--this.#waiting === 0) this.#write(() => ({ status: "working" }));
    };
    answered.then(done, done);
  }

  /** `tasks/update`: answers to pending asks (unknown keys and malformed answers are ignored). */
  answer(responses: Record<string, unknown>): Promise<unknown> {
    let answered = false;
    for (const [key, value] of Object.entries(responses)) {
      const ask = this.#pending.get(key);
      if (!ask || !isAnswer(ask.method, value)) continue;
      this.#pending.delete(key);
      ask.resolve(value);
      answered = true;
    }
    if (answered) {
      this.#write(() => (this.#pending.size === 0 ? { status: "working", inputRequests: undefined } : { inputRequests: this.#inputRequests() }));
    }
    return this.#writes;
  }

  /** `tasks/cancel`: the handler's signal aborts and its outcome is dropped (the task is `cancelled` already). */
  cancel(): void {
    this.#call?.cancel("The task was cancelled");
  }

  /** Sends a message of the call once it runs as a task: 2025 era, to the session, marked with the task. */
  relay(line: string): void | Promise<void> {
    if (this.modern) return; // 2026: no channel outside the request
    if (this.#record === undefined) {
      this.#queued.push(line); // sent once the task exists (2025: its handler may start first)
      return;
    }
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    const params = isObject(message.params) ? message.params : {};
    const meta = isObject(params._meta) ? params._meta : {};
    message.params = { ...params, _meta: { ...meta, [RELATED_TASK]: { taskId: this.#record.taskId } } };
    this.conn.notify(JSON.stringify(message), false);
  }

  /** Creates the task (once) and answers the request with it; resolves to whether that worked. */
  adopt(): Promise<boolean> {
    this.#adopting ??= (async () => {
      const call = this.#call as Cancellable;
      try {
        const record = await this.tasks.create(this.owner, this.tool, this.requestedTtlMs);
        this.conn.release(call); // the request is answered: its id no longer cancels the task
        this.#record = record;
        this.tasks.running.set(record.taskId, this);
        this.#respond(this.respondTo(record));
        for (const line of this.#queued.splice(0)) void this.relay(line);
        return true;
      } catch (error) {
        console.error("[mcpgen] could not create a task:", error);
        call.cancel("The task could not be created");
        this.#respond(refuse(this.sink, call.requestId, "internalError"));
        return false;
      }
    })();
    return this.#adopting;
  }

  private async finish(response: string | undefined): Promise<void> {
    this.#finished = true;
    if (this.#adopting === undefined) return this.#respond(response);
    if (!(await this.#adopting)) return;
    for (const ask of this.#pending.values()) ask.reject(new Error("The task has ended"));
    this.#pending.clear();
    const taskId = (this.#record as TaskRecord).taskId;
    this.#write(() => outcome(response));
    await this.#writes;
    this.tasks.running.delete(taskId);
  }

  /** Store writes of one task go one after another, in the order they were made. */
  #write(patch: () => TaskPatch): void {
    this.#writes = this.#writes
      .then(() => this.#adopting)
      .then(async (created) => {
        if (!created || this.#record === undefined) return;
        const updated = await this.tasks.store.update(this.#record.taskId, patch());
        if (updated) this.tasks.changed(updated, this.modern ? undefined : this.conn);
      })
      .catch((error: unknown) => console.error("[mcpgen] could not update a task:", error));
  }

  #inputRequests(): Record<string, unknown> {
    const requests: Record<string, unknown> = {};
    for (const [key, { method, params }] of this.#pending) requests[key] = { method, params };
    return requests;
  }
}

/** The terminal state a call's response gives its task. */
function outcome(response: string | undefined): TaskPatch {
  if (response === undefined) return { status: "cancelled", inputRequests: undefined };
  const message = JSON.parse(response) as { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };
  if (message.error !== undefined) return { status: "failed", statusMessage: message.error.message, error: message.error, inputRequests: undefined };
  const { resultType: _resultType, ...result } = message.result ?? {};
  if (isObject(result._meta)) {
    const { [META_SERVER_INFO]: _server, ...meta } = result._meta;
    if (Object.keys(meta).length > 0) result._meta = meta;
    else delete result._meta;
  }
  return { status: "completed", result, inputRequests: undefined };
}

/** The sink of a call that may become a task: the request's until then, the task's afterwards. */
export class TaskSink implements Sink {
  constructor(
    private readonly inner: Sink,
    private readonly run: TaskRun,
  ) {}

  get auth(): AuthInfo | undefined {
    return this.inner.auth;
  }

  get streaming(): boolean {
    return this.run.adopted ? !this.run.modern && !this.run.conn.ephemeral : this.inner.streaming !== false;
  }

  send(message: string): void | Promise<void> {
    return this.run.adopted ? this.run.relay(message) : this.inner.send(message);
  }

  failed(kind: ErrorKind): void {
    if (!this.run.adopted) this.inner.failed?.(kind);
  }
}

