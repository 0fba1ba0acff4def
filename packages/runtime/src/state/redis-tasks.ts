/**
 * The task store on Redis: any instance can create, poll, update, list and cancel any task. A task is a hash
 * (`json`: the record, `v`: its version) that expires with the task's TTL; an owner's tasks are a sorted set
 * ordered by creation; updates are compare-and-set on the version, so two instances never overwrite each
 * other's status change, and a terminal task never changes again. Every stored change is published, so
 * `subscribe` sees changes made on any instance.
 *
 * An instance that dies mid-task must not leave its tasks `working` forever: each instance holds a lease on
 * the unfinished tasks it created and renews it while it lives; a task whose lease lapsed is read as
 * `failed` ("the server instance running this task stopped") by whichever instance reads it next.
 */
import { isTerminal, type TaskPage, type TaskPatch, type TaskRecord, type TaskStore } from "../tasks/store.js";
import type { Bus } from "./bus.js";

/** The commands this store uses, as `@redis/client` provides them. */
export interface RedisTaskCommands {
  hSet(key: string, value: Record<string, string>): Promise<unknown>;
  hGetAll(key: string): Promise<Record<string, string>>;
  pExpire(key: string, ms: number): Promise<unknown>;
  incr(key: string): Promise<number>;
  zAdd(key: string, member: { score: number; value: string }): Promise<unknown>;
  zRangeByScore(key: string, min: string | number, max: string | number, options?: { LIMIT: { offset: number; count: number } }): Promise<string[]>;
  zScore(key: string, member: string): Promise<number | null>;
  zRem(key: string, member: string | string[]): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  set(key: string, value: string, options?: { condition?: "NX"; expiration?: { type: "PX"; value: number } }): Promise<string | null>;
  exists(key: string): Promise<number>;
  del(key: string | string[]): Promise<unknown>;
}

export interface RedisTaskStoreOptions {
  prefix?: string;
  /** Milliseconds since the epoch (default `Date.now`), as the memory store takes it. */
  now?: () => number;
  /** How long a task's lease lasts without renewal (default 10 s); renewed every third of it. */
  leaseMs?: number;
}

/** Sets the record when the version is still the one read; 1 done, 0 gone, -1 changed meanwhile. */
const COMPARE_AND_SET = `
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return 0 end
if v ~= ARGV[1] then return -1 end
redis.call('HSET', KEYS[1], 'json', ARGV[2], 'v', tostring(tonumber(v) + 1))
return 1`;

const CHANNEL = "tasks";

export class RedisTaskStore implements TaskStore {
  readonly #redis: RedisTaskCommands;
  readonly #bus: Bus;
  readonly #prefix: string;
  readonly #now: () => number;
  readonly #leaseMs: number;
  /** The unfinished tasks this instance created, whose leases it renews. */
  readonly #leased = new Set<string>();
  #renewal: ReturnType<typeof setInterval> | undefined;

  constructor(redis: RedisTaskCommands, bus: Bus, options: RedisTaskStoreOptions = {}) {
    this.#redis = redis;
    this.#bus = bus;
    this.#prefix = options.prefix ?? "mcpgen:";
    this.#now = options.now ?? Date.now;
    this.#leaseMs = options.leaseMs ?? 10_000;
  }

  /** Stops renewing leases (the instance shuts down; its unfinished tasks fail once their leases lapse). */
  close(): void {
    clearInterval(this.#renewal);
    this.#renewal = undefined;
    this.#leased.clear();
  }

  async create(record: TaskRecord): Promise<void> {
    const key = this.#key(record.taskId);
    const json = JSON.stringify(record);
    await this.#lease(record.taskId);
    await this.#redis.hSet(key, { json, v: "0" });
    // Redis forgets it when the TTL is over by the store's clock (which tests may set apart from Redis's).
    if (record.ttlMs !== null) await this.#redis.pExpire(key, Math.max(1, record.createdAt + record.ttlMs - this.#now()));
    const order = await this.#redis.incr(`${this.#prefix}tasks:order`);
    await this.#redis.zAdd(this.#ownerKey(record.owner), { score: order, value: record.taskId });
    await this.#bus.publish(CHANNEL, json);
  }

  async get(taskId: string, owner: string): Promise<TaskRecord | undefined> {
    const record = (await this.#read(taskId))?.record;
    return record && record.owner === owner ? record : undefined;
  }

  async update(taskId: string, patch: TaskPatch): Promise<TaskRecord | undefined> {
    // Retried while another instance changes the same task between our read and our write (bounded: each
    // retry means someone else's change landed, and a task takes few changes before it is terminal).
    for (let attempt = 0; attempt < 100; attempt++) {
      const read = await this.#read(taskId);
      if (read === undefined || isTerminal(read.record.status)) return undefined;
      const next: TaskRecord = { ...read.record, lastUpdatedAt: Math.max(this.#now(), read.record.lastUpdatedAt) };
      for (const [field, value] of Object.entries(patch) as [keyof TaskPatch, unknown][]) {
        if (value === undefined) delete next[field];
        else (next as unknown as Record<string, unknown>)[field] = value;
      }
      const json = JSON.stringify(next);
      const done = await this.#redis.eval(COMPARE_AND_SET, { keys: [this.#key(taskId)], arguments: [read.version, json] });
      if (done === 0) return undefined;
      if (done === 1) {
        if (isTerminal(next.status)) await this.#release(taskId);
        await this.#bus.publish(CHANNEL, json);
        return next;
      }
    }
    throw new Error(`task ${taskId}: too many concurrent updates`);
  }

  async list(owner: string, cursor: string | undefined, limit: number): Promise<TaskPage | undefined> {
    let after = 0;
    if (cursor !== undefined) {
      if (!/^[1-9][0-9]{0,15}$/.test(cursor)) return undefined;
      after = Number(cursor);
    }
    const ownerKey = this.#ownerKey(owner);
    const tasks: TaskRecord[] = [];
    let last = after;
    let more = false;
    // Reads a little past the page, skipping (and forgetting) expired tasks, until the page is full.
    for (let scanned = 0; ; ) {
      const ids = await this.#redis.zRangeByScore(ownerKey, `(${last}`, "+inf", { LIMIT: { offset: 0, count: limit + 1 } });
      if (ids.length === 0) break;
      for (const id of ids) {
        const record = (await this.#read(id))?.record;
        const score = await this.#redis.zScore(ownerKey, id);
        if (record === undefined) {
          await this.#redis.zRem(ownerKey, id);
          if (score !== null) last = Math.max(last, score);
          continue;
        }
        if (tasks.length === limit) {
          more = true;
          break;
        }
        tasks.push(record);
        if (score !== null) last = score;
      }
      scanned += ids.length;
      if (more || ids.length <= limit || scanned > 10_000) break;
    }
    return more ? { tasks, nextCursor: String(last) } : { tasks };
  }

  subscribe(listener: (record: TaskRecord) => void): () => void {
    const subscribed = this.#bus.subscribe(CHANNEL, (json) => listener(JSON.parse(json) as TaskRecord));
    return () => void subscribed.then((stop) => stop());
  }

  async #read(taskId: string): Promise<{ record: TaskRecord; version: string } | undefined> {
    const hash = await this.#redis.hGetAll(this.#key(taskId));
    if (hash.json === undefined || hash.v === undefined) return undefined;
    const record = JSON.parse(hash.json) as TaskRecord;
    if (record.ttlMs !== null && this.#now() >= record.createdAt + record.ttlMs) return undefined;
    if (!isTerminal(record.status) && !this.#leased.has(taskId) && (await this.#redis.exists(this.#leaseKey(taskId))) === 0) {
      // Its instance stopped: fail it, once, whoever reads it first (a lost race reads the winner's record).
      const message = "The server instance running this task stopped";
      const failed: TaskRecord = { ...record, status: "failed", statusMessage: message, error: { code: -32603, message }, lastUpdatedAt: this.#now() };
      delete failed.inputRequests;
      const json = JSON.stringify(failed);
      if ((await this.#redis.eval(COMPARE_AND_SET, { keys: [this.#key(taskId)], arguments: [hash.v, json] })) === 1) {
        await this.#bus.publish(CHANNEL, json);
        return { record: failed, version: String(Number(hash.v) + 1) };
      }
      return this.#read(taskId);
    }
    return { record, version: hash.v };
  }

  async #lease(taskId: string): Promise<void> {
    this.#leased.add(taskId);
    await this.#redis.set(this.#leaseKey(taskId), "1", { expiration: { type: "PX", value: this.#leaseMs } });
    this.#renewal ??= setInterval(() => {
      for (const id of this.#leased) void this.#redis.set(this.#leaseKey(id), "1", { expiration: { type: "PX", value: this.#leaseMs } }).catch(() => undefined);
    }, Math.max(1, Math.floor(this.#leaseMs / 3)));
    this.#renewal.unref?.();
  }

  async #release(taskId: string): Promise<void> {
    this.#leased.delete(taskId);
    await this.#redis.del(this.#leaseKey(taskId));
    if (this.#leased.size === 0) this.close();
  }

  #leaseKey(taskId: string): string {
    return `${this.#prefix}task-lease:${taskId}`;
  }

  #key(taskId: string): string {
    return `${this.#prefix}task:${taskId}`;
  }

  #ownerKey(owner: string): string {
    return `${this.#prefix}tasks-of:${owner}`;
  }
}
