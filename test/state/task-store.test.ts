/**
 * One contract for every `TaskStore`: the in-memory default and the Redis store, the latter through two
 * instances sharing one Redis (what one writes, the other reads).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRedis, type RedisState } from "../../packages/runtime/src/state/redis.js";
import { RedisTaskStore, type RedisTaskCommands } from "../../packages/runtime/src/state/redis-tasks.js";
import { MemoryTaskStore } from "../../packages/runtime/src/tasks/memory.js";
import type { TaskRecord, TaskStore } from "../../packages/runtime/src/tasks/store.js";
import { startRedis, type RedisServer } from "../helpers/redis.js";

let redis: RedisServer;
const opened: RedisState[] = [];
const stores: RedisTaskStore[] = [];
let prefixes = 0;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const store of stores) store.close();
  await Promise.all(opened.map((state) => state.close()));
  await redis?.stop();
});

interface Pair {
  /** Where tasks are written, and where they are read (the same store in one process). */
  writer: TaskStore;
  reader: TaskStore;
}

const clock = { now: 1_000_000 };
const now = () => clock.now;

async function redisPair(leaseMs = 10_000): Promise<Pair> {
  const prefix = `t${++prefixes}:`;
  const make = async () => {
    const state = await connectRedis(redis.url, { prefix });
    opened.push(state);
    const store = new RedisTaskStore(state.redis as unknown as RedisTaskCommands, state.bus, { prefix, now, leaseMs });
    stores.push(store);
    return store;
  };
  return { writer: await make(), reader: await make() };
}

function memoryPair(): Pair {
  const store = new MemoryTaskStore({ now });
  return { writer: store, reader: store };
}

const task = (taskId: string, owner = "alice", extra: Partial<TaskRecord> = {}): TaskRecord => ({
  taskId,
  owner,
  tool: "slow",
  status: "working",
  createdAt: clock.now,
  lastUpdatedAt: clock.now,
  ttlMs: 60_000,
  pollIntervalMs: 500,
  ...extra,
});

describe.each([
  ["memory", memoryPair],
  ["redis, two instances", redisPair],
] as const)("TaskStore contract: %s", (_name, pair) => {
  it("finds a created task for its owner only", async () => {
    const { writer, reader } = await pair();
    await writer.create(task("a1"));
    expect(await reader.get("a1", "alice")).toMatchObject({ taskId: "a1", status: "working", tool: "slow" });
    expect(await reader.get("a1", "bob")).toBeUndefined();
    expect(await reader.get("nope", "alice")).toBeUndefined();
  });

  it("applies updates, removes fields patched to undefined, and never changes a terminal task", async () => {
    const { writer, reader } = await pair();
    await writer.create(task("u1"));
    clock.now += 5;
    expect(await reader.update("u1", { status: "input_required", inputRequests: { q: { method: "elicitation/create" } } })).toMatchObject({ status: "input_required", lastUpdatedAt: clock.now });
    const working = await writer.update("u1", { status: "working", inputRequests: undefined });
    expect(working).toMatchObject({ status: "working" });
    expect(working).not.toHaveProperty("inputRequests");
    expect(await reader.update("u1", { status: "completed", result: { content: [], isError: false } })).toMatchObject({ status: "completed", result: { content: [] } });
    expect(await writer.update("u1", { status: "cancelled" })).toBeUndefined();
    expect(await reader.get("u1", "alice")).toMatchObject({ status: "completed", result: { content: [], isError: false } });
  });

  it("lets exactly one of many concurrent terminal updates win", async () => {
    const { writer, reader } = await pair();
    await writer.create(task("race"));
    const outcomes = await Promise.all([
      writer.update("race", { status: "completed", result: { content: [] } }),
      reader.update("race", { status: "cancelled" }),
      writer.update("race", { status: "failed", error: { code: -32603, message: "x" } }),
      reader.update("race", { status: "completed", result: { content: [] } }),
    ]);
    const winners = outcomes.filter((outcome) => outcome !== undefined);
    expect(winners).toHaveLength(1);
    expect((await reader.get("race", "alice"))?.status).toBe(winners[0]?.status);
  });

  it("lists an owner's live tasks oldest first, page by page", async () => {
    const { writer, reader } = await pair();
    for (const id of ["l1", "l2", "l3", "l4", "l5"]) await writer.create(task(id, "carol"));
    await writer.create(task("other", "dave"));
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const result = await reader.list("carol", cursor, 2);
      expect(result).toBeDefined();
      seen.push(...result!.tasks.map((record) => record.taskId));
      cursor = result!.nextCursor;
      if (cursor === undefined) break;
    }
    expect(seen).toEqual(["l1", "l2", "l3", "l4", "l5"]);
    expect((await reader.list("dave", undefined, 10))?.tasks.map((record) => record.taskId)).toEqual(["other"]);
    expect(await reader.list("carol", "not-a-cursor", 2)).toBeUndefined();
  });

  it("forgets tasks past their TTL by the injected clock", async () => {
    const { writer, reader } = await pair();
    await writer.create(task("ttl", "erin", { ttlMs: 1_000 }));
    await writer.create(task("keep", "erin", { ttlMs: null }));
    clock.now += 1_000;
    expect(await reader.get("ttl", "erin")).toBeUndefined();
    expect(await reader.update("ttl", { status: "completed" })).toBeUndefined();
    expect((await reader.list("erin", undefined, 10))?.tasks.map((record) => record.taskId)).toEqual(["keep"]);
  });

  it("tells subscribers of every change, whichever instance made it", async () => {
    const { writer, reader } = await pair();
    const seen: string[] = [];
    let done!: () => void;
    const all = new Promise<void>((resolve) => (done = resolve));
    const stop = reader.subscribe((record) => {
      if (record.owner !== "frank") return;
      seen.push(`${record.taskId}:${record.status}`);
      if (seen.length === 2) done();
    });
    // The Redis bus subscribes asynchronously: a round trip through it first.
    await reader.list("frank", undefined, 1);
    await new Promise((resolve) => setImmediate(resolve));
    await writer.create(task("s1", "frank"));
    await writer.update("s1", { status: "completed", result: { content: [] } });
    await Promise.race([all, new Promise((_, reject) => setTimeout(() => reject(new Error(`saw only ${JSON.stringify(seen)}`)), 5_000).unref())]);
    stop();
    expect(seen).toEqual(["s1:working", "s1:completed"]);
  });
});

describe("RedisTaskStore leases", () => {
  it("fails the unfinished tasks of an instance that stopped, once its lease lapses", async () => {
    const { writer, reader } = await redisPair(300);
    await writer.create(task("orphan", "gina"));
    await writer.create(task("finished", "gina"));
    await writer.update("finished", { status: "completed", result: { content: [] } });
    // While the writer lives it renews its lease: the task stays working however long it runs.
    expect((await reader.get("orphan", "gina"))?.status).toBe("working");
    (writer as RedisTaskStore).close();
    const deadline = Date.now() + 5_000;
    let record = await reader.get("orphan", "gina");
    while (record?.status === "working" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      record = await reader.get("orphan", "gina");
    }
    expect(record).toMatchObject({ status: "failed", error: { code: -32603, message: "The server instance running this task stopped" } });
    expect((await reader.get("finished", "gina"))?.status).toBe("completed");
  });
});
