/**
 * Shared state on Redis, for several instances of one server behind a load balancer: the event store behind
 * `Last-Event-ID`, and a pub/sub bus. Loaded only when a Redis URL is configured (`--redis <url>` or
 * `REDIS_URL`); the client library, `@redis/client`, is an optional peer dependency of the runtime that a
 * server using Redis installs beside it.
 */
import { streamOfEventId, type EventStore, type Replay } from "../http/event-store.js";
import { Channels, type Bus, type Unsubscribe } from "./bus.js";
import type { RedisTaskCommands } from "./redis-tasks.js";
import { RedisSessionStore } from "./sessions.js";

export { RedisSessionStore, type RedisSessionCommands } from "./sessions.js";
export { RedisTaskStore, type RedisTaskCommands, type RedisTaskStoreOptions } from "./redis-tasks.js";

/** The few commands used here, as `@redis/client` provides them (kept structural: no types leak out). */
export interface RedisCommands {
  rPush(key: string, value: string): Promise<unknown>;
  lRange(key: string, start: number, stop: number): Promise<string[]>;
  lTrim(key: string, start: number, stop: number): Promise<unknown>;
  pExpire(key: string, ms: number): Promise<unknown>;
  sAdd(key: string, member: string): Promise<unknown>;
  sMembers(key: string): Promise<string[]>;
  del(keys: string | string[]): Promise<unknown>;
  get(key: string): Promise<string | null>;
  publish(channel: string, message: string): Promise<unknown>;
}

interface RedisConnection extends RedisCommands, RedisTaskCommands {
  connect(): Promise<unknown>;
  duplicate(): RedisConnection;
  subscribe(channel: string, listener: (message: string, channel: string) => void): Promise<void>;
  unsubscribe(channel: string): Promise<void>;
  close?(): Promise<void>;
  quit?(): Promise<unknown>;
  on(event: "error", listener: (error: unknown) => void): unknown;
}

export interface RedisOptions {
  /** Prefix of every key and channel (default `mcpgen:`), so several servers can share one Redis. */
  prefix?: string;
  /** How long a session's events are kept after the last one (default 1 hour). */
  eventTtlMs?: number;
  /** At most this many events per stream (default 1,000). */
  maxEventsPerStream?: number;
}

/** The event store on Redis: one list per stream, trimmed to its bound and expiring with the session. */
export class RedisEventStore implements EventStore {
  readonly #redis: RedisCommands;
  readonly #prefix: string;
  readonly #ttl: number;
  readonly #max: number;

  constructor(redis: RedisCommands, options: RedisOptions = {}) {
    this.#redis = redis;
    this.#prefix = options.prefix ?? "mcpgen:";
    this.#ttl = options.eventTtlMs ?? 3_600_000;
    this.#max = options.maxEventsPerStream ?? 1_000;
  }

  async append(sessionId: string, streamId: string, eventId: string, message: string): Promise<void> {
    const key = this.#streamKey(sessionId, streamId);
    const streams = this.#streamsKey(sessionId);
    // Sent in order on one connection: the transport's own writes keep their order.
    await Promise.all([
      this.#redis.rPush(key, JSON.stringify([eventId, message])),
      this.#redis.lTrim(key, -this.#max, -1),
      this.#redis.pExpire(key, this.#ttl),
      this.#redis.sAdd(streams, streamId),
      this.#redis.pExpire(streams, this.#ttl),
    ]);
  }

  async replay(sessionId: string, lastEventId: string): Promise<Replay | undefined> {
    const streamId = streamOfEventId(lastEventId);
    if (streamId === undefined) return undefined;
    const entries = (await this.#redis.lRange(this.#streamKey(sessionId, streamId), 0, -1)).map((entry) => JSON.parse(entry) as [string, string]);
    const at = entries.findIndex(([id]) => id === lastEventId);
    const events = (from: number) => entries.slice(from).map(([id, message]) => ({ id, message }));
    if (at >= 0) return { streamId, events: events(at + 1) };
    // An id never stored (a priming event names the last event sent, or none yet: `<stream>_0`): everything
    // kept, when the first event kept is the one right after it, so that nothing in between was lost.
    const first = entries[0];
    const sequence = Number(lastEventId.slice(streamId.length + 1));
    if (!first && sequence === 0) return { streamId, events: [] };
    return first && Number(first[0].slice(streamId.length + 1)) === sequence + 1 ? { streamId, events: events(0) } : undefined;
  }

  async dropSession(sessionId: string): Promise<void> {
    const streams = this.#streamsKey(sessionId);
    const ids = await this.#redis.sMembers(streams);
    await this.#redis.del([streams, ...ids.map((id) => this.#streamKey(sessionId, id))]);
  }

  #streamKey(sessionId: string, streamId: string): string {
    return `${this.#prefix}events:${sessionId}:${streamId}`;
  }

  #streamsKey(sessionId: string): string {
    return `${this.#prefix}streams:${sessionId}`;
  }
}

/**
 * Redis pub/sub: one subscriber connection per instance, fanned out locally, so a thousand listeners on
 * one channel cost one Redis subscription.
 */
export class RedisBus implements Bus {
  readonly #publisher: RedisCommands;
  readonly #subscriber: Promise<RedisConnection>;
  readonly #prefix: string;
  readonly #channels = new Channels();

  constructor(publisher: RedisCommands, subscriber: Promise<RedisConnection>, prefix = "mcpgen:") {
    this.#publisher = publisher;
    this.#subscriber = subscriber;
    this.#prefix = prefix;
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.#publisher.publish(this.#prefix + channel, message);
  }

  async subscribe(channel: string, onMessage: (message: string) => void): Promise<Unsubscribe> {
    if (this.#channels.add(channel, onMessage)) {
      const subscriber = await this.#subscriber;
      await subscriber.subscribe(this.#prefix + channel, (message) => this.#channels.deliver(channel, message));
    }
    return async () => {
      if (this.#channels.remove(channel, onMessage)) await (await this.#subscriber).unsubscribe(this.#prefix + channel);
    };
  }
}

/** What a server shares through Redis, and how to let go of it. */
export interface RedisState {
  readonly redis: RedisCommands & RedisTaskCommands;
  readonly events: RedisEventStore;
  readonly bus: RedisBus;
  /** 2025-era sessions, so that any instance serves any session. */
  readonly sessions: RedisSessionStore;
  readonly prefix: string;
  /**
   * The key sealing 2026-era `requestState`, the same for every instance: the first instance to start
   * stores a random one, the others read it.
   */
  requestStateSecret(): Promise<string>;
  close(): Promise<void>;
}

/**
 * Connects to `url` (`redis://host:port/db`, `rediss://` for TLS). Fails with a clear message when the
 * optional `@redis/client` package is not installed or the server cannot be reached.
 */
export async function connectRedis(url: string, options: RedisOptions = {}): Promise<RedisState> {
  let createClient: (options: { url: string; socket: { reconnectStrategy(retries: number, cause: Error): number | Error } }) => RedisConnection;
  try {
    // A variable specifier: bundlers leave it alone, and nothing is loaded unless Redis is configured.
    const name = "@redis/client";
    ({ createClient } = (await import(name)) as { createClient: typeof createClient });
  } catch {
    throw new Error(`Redis was configured (${redact(url)}) but the package "@redis/client" is not installed; add it beside @mcpgen/runtime: npm install @redis/client`);
  }
  let connected = false;
  // Once connected, a lost connection is retried with a growing delay (at most 2 s); the first connection is
  // tried once, so a wrong URL fails the start instead of hanging it.
  const client = createClient({ url, socket: { reconnectStrategy: (retries, cause) => (connected ? Math.min(50 * 2 ** retries, 2_000) : cause) } });
  const errors: unknown[] = [];
  client.on("error", (error) => errors.push(error));
  try {
    await client.connect();
    connected = true;
  } catch (error) {
    throw new Error(`cannot connect to Redis at ${redact(url)}: ${error instanceof Error ? error.message : String(error)}`);
  }
  let subscriber: RedisConnection | undefined;
  const subscribing = (async () => {
    subscriber = client.duplicate();
    subscriber.on("error", (error) => errors.push(error));
    await subscriber.connect();
    return subscriber;
  })();
  // Connected lazily but at once in the background; an early failure surfaces at the first subscribe.
  subscribing.catch(() => undefined);
  const prefix = options.prefix ?? "mcpgen:";
  return {
    redis: client,
    events: new RedisEventStore(client, options),
    bus: new RedisBus(client, subscribing, prefix),
    sessions: new RedisSessionStore(client, prefix),
    prefix,
    async requestStateSecret() {
      const key = `${prefix}request-state-secret`;
      const fresh = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64");
      await client.set(key, fresh, { condition: "NX" });
      const secret = await client.get(key);
      if (secret === null) throw new Error(`Redis lost ${key} right after it was set`);
      return secret;
    },
    async close() {
      await Promise.allSettled([subscribing.then(() => quit(subscriber)), quit(client)]);
    },
  };
}

async function quit(connection: RedisConnection | undefined): Promise<void> {
  if (connection === undefined) return;
  await (connection.close ? connection.close() : connection.quit?.());
}

/** The URL without its password, for messages. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "the configured URL";
  }
}
