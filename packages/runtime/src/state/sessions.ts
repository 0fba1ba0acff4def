/**
 * Where 2025-era HTTP sessions are remembered, so that any instance of a server can serve a session another
 * instance opened. The in-memory store keeps them for this process only (one instance); the Redis store
 * (`state/redis.ts`) shares them. A record is written at `initialize`, refreshed with the idle limit as its
 * time to live, and deleted when the session ends; the transport keeps its own live copy and asks the store
 * only for a session it does not hold.
 */

import type { LogLevel } from "../handler.js";

/** What an instance needs to take over a session it did not open. */
export interface SessionRecord {
  readonly protocolVersion: string;
  readonly clientInfo?: Readonly<{ name: string; version: string }> | undefined;
  readonly clientCapabilities?: Readonly<Record<string, unknown>> | undefined;
  /** The principal that opened the session (others do not find it). */
  readonly subject?: string | undefined;
  /** Set by `logging/setLevel` (default `info`). */
  readonly logLevel?: LogLevel | undefined;
  /** The resources the session subscribed to (`resources/subscribe`). */
  readonly subscriptions?: readonly string[] | undefined;
}

export interface SessionStore {
  /** Stores (or replaces) session `id`, forgotten after `ttlMs` without `refresh`. */
  save(id: string, record: SessionRecord, ttlMs: number): Promise<void>;
  /** The live session `id`, or `undefined` (never opened, deleted, expired). */
  load(id: string): Promise<SessionRecord | undefined>;
  /** Extends the life of session `id` by `ttlMs` from now. */
  refresh(id: string, ttlMs: number): Promise<void>;
  delete(id: string): Promise<void>;
}

/** One process: what the transport's own session table already knows (nothing to restore from). */
export class InMemorySessionStore implements SessionStore {
  readonly #records = new Map<string, { record: SessionRecord; until: number }>();

  constructor(private readonly clock: () => number = Date.now) {}

  async save(id: string, record: SessionRecord, ttlMs: number): Promise<void> {
    this.#records.set(id, { record, until: this.clock() + ttlMs });
  }

  async load(id: string): Promise<SessionRecord | undefined> {
    const entry = this.#records.get(id);
    if (entry === undefined) return undefined;
    if (entry.until <= this.clock()) {
      this.#records.delete(id);
      return undefined;
    }
    return entry.record;
  }

  async refresh(id: string, ttlMs: number): Promise<void> {
    const entry = this.#records.get(id);
    if (entry) entry.until = this.clock() + ttlMs;
  }

  async delete(id: string): Promise<void> {
    this.#records.delete(id);
  }
}

/** The commands the Redis session store uses, as `@redis/client` provides them. */
export interface RedisSessionCommands {
  set(key: string, value: string, options: { expiration: { type: "PX"; value: number } }): Promise<unknown>;
  get(key: string): Promise<string | null>;
  pExpire(key: string, ms: number): Promise<unknown>;
  del(keys: string | string[]): Promise<unknown>;
}

/** Sessions on Redis: one key per session, expiring with the session's idle limit. */
export class RedisSessionStore implements SessionStore {
  constructor(
    private readonly redis: RedisSessionCommands,
    private readonly prefix = "mcpgen:",
  ) {}

  async save(id: string, record: SessionRecord, ttlMs: number): Promise<void> {
    await this.redis.set(this.#key(id), JSON.stringify(record), { expiration: { type: "PX", value: ttlMs } });
  }

  async load(id: string): Promise<SessionRecord | undefined> {
    const text = await this.redis.get(this.#key(id));
    return text === null ? undefined : (JSON.parse(text) as SessionRecord);
  }

  async refresh(id: string, ttlMs: number): Promise<void> {
    await this.redis.pExpire(this.#key(id), ttlMs);
  }

  async delete(id: string): Promise<void> {
    await this.redis.del(this.#key(id));
  }

  #key(id: string): string {
    return `${this.prefix}session:${id}`;
  }
}

/** The bus channel on which an ended session is announced, so every instance drops its copy. */
export const SESSION_CLOSED = "sessions:closed";
