/**
 * The task requests: a `tools/call` of a tool with task support, and `tasks/*` (tasks.ts tells the two wire
 * forms apart). Part of the tool-call runtime (tool-calls.ts), loaded with the first of them; `Tasks` holds
 * what they share.
 */
import { ToolCall } from "../call.js";
import type { Reply, RequestContext, Sink } from "../context.js";
import { refuse, resultResponse } from "../errors.js";
import { idJson } from "../json.js";
import { clip, isObject, META_SERVER_INFO, type RequestId } from "../protocol.js";
import type { ToolSlot } from "../tool-slot.js";
import { RELATED_TASK, TaskRun, TaskSink } from "./run.js";
import { isTerminal, type TaskRecord } from "./store.js";
import { declaresExtension, detailedTask, TASK_ANSWERS, TASKS_EXTENSION, wireTask, type TaskHost, type Tasks } from "./tasks.js";

/** What a `tasks/result` wait ends with when it is stopped (cancelled, or its connection closed). */
const STOPPED = Symbol("stopped");

/** `tools/call` of a tool with task support `optional` or `required`. */
export function taskCall(tasks: Tasks, host: TaskHost, ctx: RequestContext, slot: ToolSlot, args: Record<string, unknown>): Reply {
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
    modern ? modernResponse(tasks, id, { resultType: "task", ...wireTask(record, true) }) : resultResponse(id, JSON.stringify({ task: wireTask(record, false) }));
  const run = new TaskRun(tasks, host, tasks.owner(host, sink), name, modern, typeof ttl === "number" && ttl > 0 ? Math.floor(ttl) : undefined, respond, sink);
  const tasked: RequestContext = { ...ctx, sink: new TaskSink(sink, run) };
  const call = run.attach(new ToolCall(tasked, slot, args));
  call.taskRun = run;
  // 2025 era: the client asked for a task, which exists before the handler runs; 2026: see run.ts.
  return run.start(call, host.start(tasked, () => (modern ? call : run.begin(call))));
}

/** `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel` (the method table gives each its eras), `tasks/update`. */
export function taskRequest(tasks: Tasks, host: TaskHost, ctx: RequestContext): Reply {
  const { id, method, params, sink } = ctx;
  const modern = ctx.era === "modern";
  if (!tasks.enabled) return refuse(sink, id, "methodNotFound", `Method not found: ${method}`);
  if (modern && !declaresExtension(ctx.meta)) {
    return refuse(sink, id, "missingRequiredClientCapability", `${method} needs the ${TASKS_EXTENSION} extension: declare it in the request's client capabilities`, {
      requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    });
  }
  const owner = tasks.owner(host, sink);
  if (method === "tasks/list") return list(tasks, sink, id, owner, params?.cursor);
  const taskId = params?.taskId;
  if (typeof taskId !== "string") return refuse(sink, id, "invalidParams", `Invalid params: ${method} needs a string "taskId"`);
  return tasks.store.get(taskId, owner).then((record): Reply => {
    if (!record) return refuse(sink, id, "invalidParams", `Invalid params: no task "${clip(taskId)}"`);
    switch (method) {
      case "tasks/get":
        return modern ? modernResponse(tasks, id, detailedTask(record)) : resultResponse(id, JSON.stringify(wireTask(record, false)));
      case "tasks/result":
        return awaitResult(tasks, host, ctx, record, owner);
      case "tasks/cancel":
        return cancel(tasks, sink, id, record, modern);
      default:
        return update(tasks, sink, id, record, params?.inputResponses);
    }
  });
}

async function list(tasks: Tasks, sink: Sink, id: RequestId, owner: string, cursor: unknown): Promise<string> {
  if (cursor !== undefined && typeof cursor !== "string") return refuse(sink, id, "invalidParams", "Invalid cursor");
  const page = await tasks.store.list(owner, cursor, tasks.options.pageSize);
  if (!page) return refuse(sink, id, "invalidParams", "Invalid cursor");
  const listed = page.tasks.map((record) => wireTask(record, false));
  return resultResponse(id, JSON.stringify(page.nextCursor === undefined ? { tasks: listed } : { tasks: listed, nextCursor: page.nextCursor }));
}

/**
 * 2025 era: waits until the task is terminal, then answers what its call answered. The request is held open
 * on its connection meanwhile: cancelled, or its connection closing, it stops waiting and gets no response.
 */
async function awaitResult(tasks: Tasks, host: TaskHost, ctx: RequestContext, record: TaskRecord, owner: string): Promise<string | undefined> {
  const { id, sink } = ctx;
  let done: TaskRecord | undefined = record;
  if (!isTerminal(record.status)) {
    const wait = terminal(tasks, record, owner);
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
function terminal(tasks: Tasks, task: TaskRecord, owner: string): { ended: Promise<TaskRecord | undefined | typeof STOPPED>; stop: () => void } {
  const { taskId } = task;
  let stop = (): void => {};
  const ended = new Promise<TaskRecord | undefined | typeof STOPPED>((resolve) => {
    let expiry: ReturnType<typeof setTimeout> | undefined;
    const unlisten = tasks.store.subscribe((record) => {
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
      }, Math.max(0, task.createdAt + task.ttlMs - tasks.options.now()));
      expiry.unref?.();
    }
    stop = () => {
      unsubscribe();
      resolve(STOPPED);
    };
    // It may have ended between the caller's read and the subscription.
    void tasks.store.get(taskId, owner).then((record) => {
      if (!record || isTerminal(record.status)) {
        unsubscribe();
        resolve(record);
      }
    });
  });
  return { ended, stop };
}

async function cancel(tasks: Tasks, sink: Sink, id: RequestId, record: TaskRecord, modern: boolean): Promise<string> {
  if (isTerminal(record.status)) {
    if (modern) return modernResponse(tasks, id, { resultType: "complete" }); // idempotent in the extension
    return refuse(sink, id, "invalidParams", `Invalid params: task "${record.taskId}" is ${record.status} already and cannot be cancelled`);
  }
  const cancelled = await tasks.store.update(record.taskId, { status: "cancelled", statusMessage: "Cancelled by the client", inputRequests: undefined });
  const run = tasks.running.get(record.taskId);
  run?.cancel();
  const now = cancelled ?? (await tasks.store.get(record.taskId, record.owner)) ?? record;
  if (cancelled) tasks.changed(cancelled, modern ? undefined : run?.conn);
  if (modern) return modernResponse(tasks, id, { resultType: "complete" });
  return resultResponse(id, JSON.stringify(wireTask(now, false)));
}

async function update(tasks: Tasks, sink: Sink, id: RequestId, record: TaskRecord, responses: unknown): Promise<string> {
  if (!isObject(responses)) return refuse(sink, id, "invalidParams", 'Invalid params: tasks/update needs an "inputResponses" object');
  const run = tasks.running.get(record.taskId);
  // The handler waits in this process, or (shared store) maybe in another one, which hears it on the bus.
  if (run) await run.answer(responses);
  else await tasks.bus?.publish(TASK_ANSWERS, JSON.stringify({ taskId: record.taskId, responses }));
  return modernResponse(tasks, id, { resultType: "complete" });
}

function modernResponse(tasks: Tasks, id: RequestId, result: Record<string, unknown>): string {
  return resultResponse(id, JSON.stringify(tasks.serverInfo ? { ...result, _meta: { [META_SERVER_INFO]: tasks.serverInfo } } : result));
}
