/**
 * Tasks through the core, in both wire forms: the 2025-11-25 tasks utility and the 2026-07-28 extension
 * `io.modelcontextprotocol/tasks`. Every message is checked against the spec schema of its version (the
 * Harness), and the 2025 task results against their own definitions.
 */
import * as sdk from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { createServer, MemoryTaskStore, type Server } from "../../packages/runtime/src/index.js";
import { Harness, type Message } from "../runtime/helpers/core.js";
import { activeOracle } from "../runtime/helpers/spec.js";
import { aborted, Clock, registry, release, until, waiting } from "./fixture.js";

const TASKS = "io.modelcontextprotocol/tasks";
const RELATED = "io.modelcontextprotocol/related-task";
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "tasks-test", version: "0.0.1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
const WITH_TASKS = { "io.modelcontextprotocol/clientCapabilities": { elicitation: {}, extensions: { [TASKS]: {} } } };

/** The SDK's published schemas of the 2025-11-25 task messages, for when the spec schemas are not at hand. */
const SDK_TASK_SCHEMAS: Record<string, { safeParse(value: unknown): { success: boolean; error?: unknown } }> = {
  CreateTaskResult: sdk.CreateTaskResultSchema,
  GetTaskResult: sdk.GetTaskResultSchema,
  GetTaskPayloadResult: sdk.CallToolResultSchema,
  ListTasksResult: sdk.ListTasksResultSchema,
  CancelTaskResult: sdk.CancelTaskResultSchema,
  TaskStatusNotificationParams: sdk.TaskStatusNotificationParamsSchema,
};

/** Checks `value` against the spec schema's `def` (2025-11-25), or the SDK's schema of it when the oracle has none. */
function expectValid(def: string, value: unknown): void {
  const { oracle } = activeOracle();
  let problems: string | undefined;
  try {
    problems = oracle.problems("2025-11-25", def, value);
  } catch {
    const parsed = (SDK_TASK_SCHEMAS[def] as NonNullable<(typeof SDK_TASK_SCHEMAS)[string]>).safeParse(value);
    problems = parsed.success ? undefined : String(parsed.error);
  }
  expect(problems).toBeUndefined();
}

let labels = 0;
const label = (): string => `t${++labels}`;

/** Sends a request without the Harness's result-definition check (task results are not CallToolResults). */
async function send(h: Harness, method: string, params: Record<string, unknown> = {}, meta?: Record<string, unknown>): Promise<Message> {
  const envelope = h.version === "2026-07-28" ? { ...ENVELOPE, ...meta } : meta;
  const reply = await h.raw({ jsonrpc: "2.0", id: h.id(), method, params: envelope ? { ...params, _meta: envelope } : params });
  return reply as Message;
}

/** A 2025 session whose notifications are recorded unchecked (the test checks them itself). */
async function rawSession(server: Server): Promise<Harness> {
  const notifications: Message[] = [];
  const conn = server.connect({ send: (line) => void notifications.push(JSON.parse(line) as Message) });
  let next = 1;
  const raw = async (message: unknown): Promise<Message | undefined> => {
    const reply = await conn.handle(message);
    return reply === undefined ? undefined : (JSON.parse(reply) as Message);
  };
  await raw({ jsonrpc: "2.0", id: next++, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
  await raw({ jsonrpc: "2.0", method: "notifications/initialized" });
  return { version: "2025-11-25", notifications, raw, id: () => next++ } as unknown as Harness;
}

async function legacy(server: Server, capabilities: Record<string, unknown> = {}): Promise<Harness> {
  const h = new Harness({ server });
  h.version = "2025-11-25";
  await h.raw({ jsonrpc: "2.0", id: h.id(), method: "initialize", params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "t", version: "1" } } });
  await h.raw({ jsonrpc: "2.0", method: "notifications/initialized" });
  return h;
}

describe("declaration and capabilities", () => {
  it("lists execution.taskSupport as declared and advertises tasks per era", async () => {
    const server = createServer(registry);
    const h = await legacy(server);
    const tools = (await h.result("tools/list")).tools as { name: string; execution?: unknown }[];
    expect(tools.find((tool) => tool.name === "must")?.execution).toEqual({ taskSupport: "required" });
    expect(tools.find((tool) => tool.name === "plain")?.execution).toEqual({ taskSupport: "forbidden" });
    expect(server.capabilities("legacy").tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    expect(server.capabilities("legacy").extensions).toBeUndefined();
    const modern = new Harness({ server });
    const discovered = (await modern.result("server/discover")).capabilities as Record<string, unknown>;
    expect(discovered.extensions).toEqual({ [TASKS]: {} });
    expect(discovered.tasks).toBeUndefined();
  });

  it("a server without task-supporting tools advertises nothing and knows no task methods", async () => {
    const server = createServer({ ...registry, tools: registry.tools.filter((tool) => tool.name === "plain") });
    expect(server.capabilities("legacy").tasks).toBeUndefined();
    expect(server.capabilities("modern").extensions).toBeUndefined();
    const h = await legacy(server);
    expect(((await send(h, "tasks/list")).error as { code: number }).code).toBe(-32601);
  });
});

describe("2025-11-25 tasks", () => {
  it("tools/call with params.task answers a task at once; tasks/get, status notifications, tasks/result", async () => {
    const server = createServer(registry);
    // Its own session, not the Harness: the SDK fallback oracle does not know notifications/tasks/status,
    // so each task message is checked here against its own definition (expectValid).
    const h = await rawSession(server);
    const job = label();
    const created = (await send(h, "tools/call", { name: "job", arguments: { label: job }, task: { ttl: 60_000 }, _meta: { progressToken: "p1" } })).result as Message;
    expectValid("CreateTaskResult", created);
    const task = created.task as Message;
    expect(task).toMatchObject({ status: "working", ttl: 60_000, pollInterval: 1000 });
    const taskId = task.taskId as string;

    const got = (await send(h, "tasks/get", { taskId })).result as Message;
    expectValid("GetTaskResult", got);
    expect(got).toMatchObject({ taskId, status: "working" });

    const result = send(h, "tasks/result", { taskId }); // waits for the end
    await until(() => (waiting(job) ? true : undefined));
    release(job);
    const payload = (await result).result as Message;
    expectValid("GetTaskPayloadResult", payload);
    expect(payload.content).toEqual([{ type: "text", text: `job ${job} done` }]);
    expect((payload._meta as Message)[RELATED]).toEqual({ taskId });

    // progress keeps its token for the task's lifetime and names the task once the request was answered
    const progress = h.notifications.filter((n) => n.method === "notifications/progress");
    expect(progress.map((n) => (n.params as Message).progress)).toEqual([1, 2]);
    expect(((progress[1]?.params as Message)._meta as Message)[RELATED]).toEqual({ taskId });
    const statuses = () => h.notifications.filter((n) => n.method === "notifications/tasks/status").map((n) => n.params as Message);
    await until(() => (statuses().at(-1)?.status === "completed" ? true : undefined)); // it may trail the result
    for (const status of statuses()) expectValid("TaskStatusNotificationParams", status);
    expect(statuses().at(-1)).toMatchObject({ taskId, status: "completed" });
  });

  it("what a handler sends before its task is stored still reaches the session, marked with the task", async () => {
    const h = await rawSession(createServer(registry));
    for (const token of ["first", "second"]) {
      // the second call finds the tool loaded: the handler runs before the task is stored
      const taskId = ((await send(h, "tools/call", { name: "prompt", task: {}, _meta: { progressToken: token } })).result as { task: Message }).task.taskId;
      const progress = await until(() => h.notifications.find((n) => n.method === "notifications/progress" && (n.params as Message).progressToken === token));
      expect(((progress.params as Message)._meta as Message)[RELATED]).toEqual({ taskId });
    }
  });

  it("tasks/list pages a session's tasks only; another session cannot see or reach them", async () => {
    const server = createServer(registry, { tasks: { pageSize: 2 } });
    const mine = await legacy(server);
    const theirs = await legacy(server);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(((await send(mine, "tools/call", { name: "quick", task: {} })).result as { task: Message }).task.taskId as string);
    const first = (await send(mine, "tasks/list")).result as Message;
    expectValid("ListTasksResult", first);
    const second = (await send(mine, "tasks/list", { cursor: first.nextCursor })).result as Message;
    expect([...(first.tasks as Message[]), ...(second.tasks as Message[])].map((t) => t.taskId)).toEqual(ids);
    expect(second.nextCursor).toBeUndefined();
    expect(((await send(mine, "tasks/list", { cursor: "nonsense" })).error as { code: number }).code).toBe(-32602);

    expect((await send(theirs, "tasks/list")).result).toEqual({ tasks: [] });
    for (const method of ["tasks/get", "tasks/result", "tasks/cancel"]) {
      expect(((await send(theirs, method, { taskId: ids[0] })).error as { code: number }).code).toBe(-32602);
    }
  });

  it("tasks/cancel stops the handler, the task stays cancelled, and a second cancel is refused", async () => {
    const h = await legacy(createServer(registry));
    const job = label();
    const taskId = ((await send(h, "tools/call", { name: "job", arguments: { label: job }, task: {} })).result as { task: Message }).task.taskId as string;
    await until(() => (waiting(job) ? true : undefined));
    const cancelled = (await send(h, "tasks/cancel", { taskId })).result as Message;
    expectValid("CancelTaskResult", cancelled);
    expect(cancelled.status).toBe("cancelled");
    expect(aborted.has(job)).toBe(true);
    expect(((await send(h, "tasks/get", { taskId })).result as Message).status).toBe("cancelled");
    expect(((await send(h, "tasks/cancel", { taskId })).error as { code: number }).code).toBe(-32602);
    expect(((await send(h, "tasks/result", { taskId })).error as { code: number }).code).toBe(-32602);
  });

  it("a required tool called without params.task is refused; a crash fails the task with its error", async () => {
    const h = await legacy(createServer(registry, { onError: () => {} }));
    expect(((await send(h, "tools/call", { name: "must" })).error as { code: number }).code).toBe(-32601);
    const crash = label();
    const taskId = ((await send(h, "tools/call", { name: "crash", arguments: { label: crash }, task: {} })).result as { task: Message }).task.taskId as string;
    await until(() => (waiting(crash) ? true : undefined));
    release(crash);
    const error = (await send(h, "tasks/result", { taskId })).error as { code: number; data: Message };
    expect(error.code).toBe(-32603);
    expect((error.data._meta as Message)[RELATED]).toEqual({ taskId });
    expect(((await send(h, "tasks/get", { taskId })).result as Message).status).toBe("failed");
  });

  it("a tool without task support asked to run as a task gets -32601 in the 2025 era and runs plainly in the 2026 era", async () => {
    const h = await legacy(createServer(registry));
    const error = (await send(h, "tools/call", { name: "plain", task: {} })).error as { code: number; message: string };
    expect(error.code).toBe(-32601);
    expect(error.message).toMatch(/"plain" does not run as a task/);
    expect(((await send(h, "tasks/list")).result as { tasks: unknown[] }).tasks).toEqual([]);
    expect(((await send(h, "tools/call", { name: "plain" })).result as { content: unknown }).content).toEqual([{ type: "text", text: "plain" }]);
    const modern = new Harness({ registry });
    const plain = (await send(modern, "tools/call", { name: "plain", task: {} }, WITH_TASKS)).result as Message;
    expect(plain).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "plain" }] });
  });

  it("expires a task after its ttl by the injected clock, and bounds the ttl a client asks for", async () => {
    const clock = new Clock();
    const h = await legacy(createServer(registry, { tasks: { now: clock.now, ttlMs: 1000, maxTtlMs: 5000 } }));
    const short = ((await send(h, "tools/call", { name: "quick", task: {} })).result as { task: Message }).task;
    const long = ((await send(h, "tools/call", { name: "quick", task: { ttl: 999_999 } })).result as { task: Message }).task;
    expect([short.ttl, long.ttl]).toEqual([1000, 5000]);
    clock.advance(999);
    expect(((await send(h, "tasks/get", { taskId: short.taskId })).result as Message).taskId).toBe(short.taskId);
    clock.advance(1);
    expect(((await send(h, "tasks/get", { taskId: short.taskId })).error as { code: number }).code).toBe(-32602);
    expect(((await send(h, "tasks/list")).result as { tasks: Message[] }).tasks.map((t) => t.taskId)).toEqual([long.taskId]);
  });

  it("tasks/result on a task that never ends stops waiting when the task expires", async () => {
    const clock = new Clock();
    const h = await legacy(createServer(registry, { tasks: { now: clock.now, ttlMs: 1000 } }));
    const job = label();
    const taskId = ((await send(h, "tools/call", { name: "job", arguments: { label: job }, task: {} })).result as { task: Message }).task.taskId;
    clock.advance(999); // 1 ms left
    expect(((await send(h, "tasks/result", { taskId })).error as { code: number }).code).toBe(-32602);
    release(job);
  });

  it("a waiting tasks/result holds its id, and stops waiting, with no response, when cancelled or when its connection closes", async () => {
    const h = await legacy(createServer(registry));
    const job = label();
    const taskId = ((await send(h, "tools/call", { name: "job", arguments: { label: job }, task: {} })).result as { task: Message }).task.taskId;
    const waiting = h.conn.handle({ jsonrpc: "2.0", id: "r1", method: "tasks/result", params: { taskId } }) as Promise<string | undefined>;
    const error = async (message: Record<string, unknown>) => ((await h.raw({ jsonrpc: "2.0", ...message })) as Message).error;
    // Its id is in use: by another wait (answered once the first is held: both go the same way), and by a call.
    expect(await error({ id: "r1", method: "tasks/result", params: { taskId } })).toMatchObject({ code: -32600 });
    const reused = await error({ id: "r1", method: "tools/call", params: { name: "job", arguments: { label: label() } } });
    expect(reused).toMatchObject({ code: -32600, message: expect.stringMatching(/already in use/) });
    // Cancelled: no response, though the task still runs; the id is free again.
    await h.conn.handle({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "r1" } });
    expect(await waiting).toBeUndefined();
    expect(((await send(h, "tasks/get", { taskId })).result as Message).status).toBe("working");
    const again = h.conn.handle({ jsonrpc: "2.0", id: "r1", method: "tasks/result", params: { taskId } }) as Promise<string | undefined>;
    // A call in flight holds its id against a tasks/result too.
    const call = h.conn.handle({ jsonrpc: "2.0", id: "c1", method: "tools/call", params: { name: "job", arguments: { label: label() } } });
    expect(await error({ id: "c1", method: "tasks/result", params: { taskId } })).toMatchObject({ code: -32600 });
    // The connection closes: the wait ends with no response.
    await h.conn.close();
    expect(await again).toBeUndefined();
    expect(await call).toBeUndefined(); // cancelled by the close
    release(job);
  });

  it("input_required: the task's elicitation reaches the session, marked with the task, and the answer resumes it", async () => {
    const h = await legacy(createServer(registry), { elicitation: {} });
    const taskId = ((await send(h, "tools/call", { name: "confirm", task: {} })).result as { task: Message }).task.taskId as string;
    const ask = await until(() => h.notifications.find((n) => n.method === "elicitation/create"));
    expect(((ask.params as Message)._meta as Message)[RELATED]).toEqual({ taskId });
    await until(async () => (((await send(h, "tasks/get", { taskId })).result as Message).status === "input_required" ? true : undefined));
    await h.raw({ jsonrpc: "2.0", id: ask.id, result: { action: "accept", content: { ok: true } } });
    const payload = (await send(h, "tasks/result", { taskId })).result as Message;
    expect(payload.content).toEqual([{ type: "text", text: "confirmed: accept" }]);
  });
});

describe("2026-07-28 extension io.modelcontextprotocol/tasks", () => {
  it("without the extension: optional tools answer directly, required ones and tasks/* are -32021", async () => {
    const h = new Harness({ registry });
    expect(Harness.text(await h.call("quick"))).toBe("quick");
    const refused = (await send(h, "tools/call", { name: "must" })).error as { code: number; data: unknown };
    expect(refused).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } });
    expect(((await send(h, "tasks/get", { taskId: "x" })).error as { code: number }).code).toBe(-32021);
  });

  it("creates a task for a call still running; tasks/get inlines the result; no tasks/result or tasks/list", async () => {
    const h = new Harness({ registry });
    const job = label();
    const created = (await send(h, "tools/call", { name: "job", arguments: { label: job } }, WITH_TASKS)).result as Message;
    expect(created).toMatchObject({ resultType: "task", status: "working", ttlMs: 3_600_000, pollIntervalMs: 1000 });
    expect(created).not.toHaveProperty("task");
    const taskId = created.taskId as string;
    expect(((await send(h, "tasks/get", { taskId }, WITH_TASKS)).result as Message).status).toBe("working");
    release(job);
    const done = await until(async () => {
      const got = (await send(h, "tasks/get", { taskId }, WITH_TASKS)).result as Message;
      return got.status === "completed" ? got : undefined;
    });
    expect(done.result).toEqual({ content: [{ type: "text", text: `job ${job} done` }] });
    for (const method of ["tasks/result", "tasks/list"]) expect(((await send(h, method, { taskId }, WITH_TASKS)).error as { code: number }).code).toBe(-32601);
    expect(((await send(h, "tasks/get", { taskId: "unknown" }, WITH_TASKS)).error as { code: number }).code).toBe(-32602);
  });

  it("a call done at once answers directly; a tool error completes the task with isError", async () => {
    const h = new Harness({ registry });
    expect((await send(h, "tools/call", { name: "quick" }, WITH_TASKS)).result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "quick" }] });
    const refuse = label();
    const taskId = ((await send(h, "tools/call", { name: "refuse", arguments: { label: refuse } }, WITH_TASKS)).result as Message).taskId as string;
    release(refuse);
    const done = await until(async () => {
      const got = (await send(h, "tasks/get", { taskId }, WITH_TASKS)).result as Message;
      return got.status === "working" ? undefined : got;
    });
    expect(done).toMatchObject({ status: "completed", result: { isError: true, content: [{ type: "text", text: "refused" }] } });
  });

  it("asks inside a task wait for tasks/update: input_required with inputRequests, then completed", async () => {
    const h = new Harness({ registry });
    const taskId = ((await send(h, "tools/call", { name: "confirm" }, WITH_TASKS)).result as Message).taskId as string;
    const parked = await until(async () => {
      const got = (await send(h, "tasks/get", { taskId }, WITH_TASKS)).result as Message;
      return got.status === "input_required" ? got : undefined;
    });
    expect(parked.inputRequests).toEqual({ sure: { method: "elicitation/create", params: expect.objectContaining({ message: "Sure?" }) } });
    const ack = (await send(h, "tasks/update", { taskId, inputResponses: { other: {}, sure: { action: "decline" } } }, WITH_TASKS)).result as Message;
    expect(Object.keys(ack).sort()).toEqual(["_meta", "resultType"]);
    const done = await until(async () => {
      const got = (await send(h, "tasks/get", { taskId }, WITH_TASKS)).result as Message;
      return got.status === "completed" ? got : undefined;
    });
    expect(done.result).toEqual({ content: [{ type: "text", text: "confirmed: decline" }] });
    expect(done).not.toHaveProperty("inputRequests");
  });

  it("a handler that asks at once becomes a task also when its tool is loaded already, after a cancelled one", async () => {
    const h = new Harness({ registry });
    for (let round = 0; round < 2; round++) {
      const taskId = ((await send(h, "tools/call", { name: "confirm" }, WITH_TASKS)).result as Message).taskId as string;
      expect(typeof taskId).toBe("string");
      await until(async () => (((await send(h, "tasks/get", { taskId }, WITH_TASKS)).result as Message).status === "input_required" ? true : undefined));
      expect((await send(h, "tasks/cancel", { taskId }, WITH_TASKS)).result).toMatchObject({ resultType: "complete" });
    }
  });

  it("asks marked beforeTask are input_required rounds; the retry with the answer becomes the task", async () => {
    const h = new Harness({ registry });
    const named = label();
    const round = (await send(h, "tools/call", { name: "named", arguments: { label: named } }, WITH_TASKS)).result as Message;
    expect(round.resultType).toBe("input_required");
    expect(round).not.toHaveProperty("taskId");
    const retry = (await send(
      h,
      "tools/call",
      { name: "named", arguments: { label: named }, inputResponses: { name: { action: "accept", content: { name: "Ada" } } }, requestState: round.requestState },
      WITH_TASKS,
    )).result as Message;
    expect(retry.resultType).toBe("task");
    expect(retry).not.toHaveProperty("requestState");
    await until(() => (waiting(named) ? true : undefined));
    release(named);
    const done = await until(async () => {
      const got = (await send(h, "tasks/get", { taskId: retry.taskId }, WITH_TASKS)).result as Message;
      return got.status === "completed" ? got : undefined;
    });
    expect(done.result).toEqual({ content: [{ type: "text", text: "hello Ada" }] });
  });

  it("tasks/cancel acknowledges, aborts the handler, and is idempotent; a crash fails the task", async () => {
    const h = new Harness({ registry, onError: () => {} });
    const job = label();
    const taskId = ((await send(h, "tools/call", { name: "job", arguments: { label: job } }, WITH_TASKS)).result as Message).taskId as string;
    await until(() => (waiting(job) ? true : undefined));
    for (let i = 0; i < 2; i++) expect((await send(h, "tasks/cancel", { taskId }, WITH_TASKS)).result).toMatchObject({ resultType: "complete" });
    expect(aborted.has(job)).toBe(true);
    expect(((await send(h, "tasks/get", { taskId }, WITH_TASKS)).result as Message).status).toBe("cancelled");

    const crash = label();
    const crashed = ((await send(h, "tools/call", { name: "crash", arguments: { label: crash } }, WITH_TASKS)).result as Message).taskId as string;
    await until(() => (waiting(crash) ? true : undefined));
    release(crash);
    const failed = await until(async () => {
      const got = (await send(h, "tasks/get", { taskId: crashed }, WITH_TASKS)).result as Message;
      return got.status === "failed" ? got : undefined;
    });
    expect(failed.error).toMatchObject({ code: -32603 });
    expect(failed.statusMessage).toBe((failed.error as { message: string }).message);
    expect(failed).not.toHaveProperty("result");
  });

  it("a task cancelled through another server sharing the store stops its handler here", async () => {
    const store = new MemoryTaskStore();
    const here = new Harness({ registry, tasks: { store } });
    const there = new Harness({ registry, tasks: { store } });
    const job = label();
    const taskId = ((await send(here, "tools/call", { name: "job", arguments: { label: job } }, WITH_TASKS)).result as Message).taskId as string;
    await until(() => (waiting(job) ? true : undefined));
    expect((await send(there, "tasks/cancel", { taskId }, WITH_TASKS)).result).toMatchObject({ resultType: "complete" });
    expect(aborted.has(job)).toBe(true);
    expect(((await send(here, "tasks/get", { taskId }, WITH_TASKS)).result as Message).status).toBe("cancelled");
  });

  it("scopes tasks to the authenticated subject", async () => {
    const server = createServer(registry);
    const as = (subject: string) => {
      const conn = server.connect({ send: () => {}, auth: { subject, token: "t" } as never }, { ephemeral: true });
      return async (method: string, params: Record<string, unknown>) =>
        JSON.parse((await conn.handle({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", ...WITH_TASKS } } })) as string) as Message;
    };
    const job = label();
    const taskId = ((await as("alice")("tools/call", { name: "job", arguments: { label: job } })).result as Message).taskId;
    expect(((await as("alice")("tasks/get", { taskId })).result as Message).status).toBe("working");
    expect(((await as("bob")("tasks/get", { taskId })).error as { code: number }).code).toBe(-32602);
    expect(((await as("bob")("tasks/cancel", { taskId })).error as { code: number }).code).toBe(-32602);
    release(job);
  });
});

describe("MemoryTaskStore", () => {
  const record = (taskId: string, owner: string, createdAt: number) => ({ taskId, owner, tool: "t", status: "working" as const, createdAt, lastUpdatedAt: createdAt, ttlMs: 100, pollIntervalMs: 10 });

  it("keeps terminal states, scopes by owner, pages, expires by its clock and announces changes", async () => {
    const clock = new Clock(1000);
    const store = new MemoryTaskStore({ now: clock.now });
    const seen: string[] = [];
    const stop = store.subscribe((r) => seen.push(`${r.taskId}:${r.status}`));
    await store.create(record("a", "me", 1000));
    await store.create(record("b", "me", 1000));
    await store.create(record("c", "you", 1000));
    expect(await store.get("c", "me")).toBeUndefined();
    expect((await store.update("a", { status: "completed", result: { content: [] } }))?.status).toBe("completed");
    expect(await store.update("a", { status: "working" })).toBeUndefined();
    const page = await store.list("me", undefined, 1);
    expect(page?.tasks.map((t) => t.taskId)).toEqual(["a"]);
    expect((await store.list("me", page?.nextCursor, 1))?.tasks.map((t) => t.taskId)).toEqual(["b"]);
    stop();
    await store.update("b", { status: "failed" });
    expect(seen).toEqual(["a:working", "b:working", "c:working", "a:completed"]);
    clock.advance(100);
    expect(await store.get("b", "me")).toBeUndefined();
    expect(store.size).toBe(0);
  });
});
