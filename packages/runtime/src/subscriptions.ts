/**
 * Who hears about changes, in both eras:
 * - 2025: every session (a connection that outlives its requests: stdio, a Streamable HTTP session) hears
 *   `notifications/{tools,resources,prompts}/list_changed`; `resources/subscribe` adds it to the subscribers of
 *   one URI for `notifications/resources/updated`. A closing session leaves every table it was in.
 * - 2026: a `subscriptions/listen` request opens a `Listener` with the filter the server agreed to honor; every
 *   notification it carries names the listen request's id in `_meta`. It lives until the client cancels it or
 *   the transport goes away.
 * `Server.resourceUpdated()` / `Server.listChanged()` (and the same on a handler's `ctx`) fan out to both.
 */
import type { ListKind } from "./handler.js";
import { idJson } from "./json.js";
import { isObject, MAX_URI_LENGTH, type RequestId } from "./protocol.js";

export const META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

/** What a server can announce: the kinds its registry has. */
export interface Announceable {
  readonly tools: boolean;
  readonly resources: boolean;
  readonly prompts: boolean;
}

/** A 2025-era session as the tables see it: somewhere to send a serialized notification. */
export interface SessionTarget {
  /** `fanout`: the notification is a change every instance of the server hears (see `Sink.fanout`). */
  notify(line: string, fanout: boolean): void;
}

/** The filter of a `subscriptions/listen` request (SubscriptionFilter), as honored. */
export interface SubscriptionFilter {
  toolsListChanged?: true;
  promptsListChanged?: true;
  resourcesListChanged?: true;
  resourceSubscriptions?: string[];
  /** Tasks extension (`io.modelcontextprotocol/tasks`): `notifications/tasks` for these tasks. */
  taskIds?: string[];
}

/** Sizes of the tables (for tests and monitoring). */
export interface SubscriptionStats {
  /** 2025-era sessions that hear list changes. */
  sessions: number;
  /** Distinct URIs with at least one 2025-era subscriber, and (session, URI) pairs. */
  uris: number;
  subscriptions: number;
  /** Open 2026-era listen streams. */
  listeners: number;
}

export class Subscriptions {
  private readonly sessions = new Map<SessionTarget, Set<string>>();
  private readonly subscribers = new Map<string, Set<SessionTarget>>();
  private readonly listeners = new Set<Listener>();

  constructor(
    private readonly announceable: Announceable,
    /** Most URIs one session or one listen stream may subscribe to. */
    readonly maxPerClient: number,
  ) {}

  get stats(): SubscriptionStats {
    let subscriptions = 0;
    for (const uris of this.sessions.values()) subscriptions += uris.size;
    return { sessions: this.sessions.size, uris: this.subscribers.size, subscriptions, listeners: this.listeners.size };
  }

  // ── 2025 era ──

  /** A session starts hearing list changes (after `initialize`). */
  addSession(session: SessionTarget): void {
    if (!this.sessions.has(session)) this.sessions.set(session, new Set());
  }

  /** A session ends: it leaves every table. */
  removeSession(session: SessionTarget): void {
    const uris = this.sessions.get(session);
    if (!uris) return;
    this.sessions.delete(session);
    for (const uri of uris) this.leave(session, uri);
  }

  /** `resources/subscribe`; returns what is wrong, if anything. */
  subscribe(session: SessionTarget, uri: string): string | undefined {
    const uris = this.sessions.get(session);
    if (!uris) return "resources/subscribe needs a session that can receive notifications (this connection is stateless)";
    if (uris.has(uri)) return undefined;
    if (uris.size >= this.maxPerClient) return `a session may subscribe to at most ${this.maxPerClient} resources`;
    uris.add(uri);
    let set = this.subscribers.get(uri);
    if (!set) this.subscribers.set(uri, (set = new Set()));
    set.add(session);
    return undefined;
  }

  /** `resources/unsubscribe` (unknown URIs are fine: the subscription is gone either way). */
  unsubscribe(session: SessionTarget, uri: string): void {
    if (this.sessions.get(session)?.delete(uri)) this.leave(session, uri);
  }

  /** The URIs `session` is subscribed to (a shared session's record carries them to other instances). */
  urisOf(session: SessionTarget): string[] {
    return [...(this.sessions.get(session) ?? [])];
  }

  /** Makes `session`'s subscriptions exactly `uris` (as another instance serving the session set them). */
  replace(session: SessionTarget, uris: readonly string[]): void {
    const wanted = new Set(uris);
    for (const uri of this.urisOf(session)) if (!wanted.has(uri)) this.unsubscribe(session, uri);
    for (const uri of wanted) this.subscribe(session, uri);
  }

  private leave(session: SessionTarget, uri: string): void {
    const set = this.subscribers.get(uri);
    set?.delete(session);
    if (set?.size === 0) this.subscribers.delete(uri);
  }

  // ── 2026 era ──

  /**
   * Opens a listen stream: checks the requested filter, honors what this server can announce, and sends the
   * acknowledgment through `send` (always the stream's first message). `taskOwner`: who the request may
   * watch tasks of (the tasks extension declared on a server with task tools), else no `taskIds` are
   * honored. Returns the listener, or what is wrong with the request.
   */
  open(id: RequestId, requested: unknown, send: (line: string) => unknown, taskOwner?: string): Listener | string {
    if (!isObject(requested)) return 'subscriptions/listen needs a "notifications" object';
    const honored: SubscriptionFilter = {};
    const can = this.announceable;
    if (requested.toolsListChanged === true && can.tools) honored.toolsListChanged = true;
    if (requested.promptsListChanged === true && can.prompts) honored.promptsListChanged = true;
    if (requested.resourcesListChanged === true && can.resources) honored.resourcesListChanged = true;
    if (requested.resourceSubscriptions !== undefined) {
      const uris = distinctStrings(requested.resourceSubscriptions);
      if (!uris) return '"notifications.resourceSubscriptions" must be an array of strings';
      if (uris.some((uri) => uri.length > MAX_URI_LENGTH)) return `"notifications.resourceSubscriptions" holds a URI longer than ${MAX_URI_LENGTH} characters`;
      if (uris.length > this.maxPerClient) return `a listen stream may subscribe to at most ${this.maxPerClient} resources`;
      if (can.resources) honored.resourceSubscriptions = uris;
    }
    if (requested.taskIds !== undefined) {
      const taskIds = distinctStrings(requested.taskIds);
      if (!taskIds) return '"notifications.taskIds" must be an array of strings';
      if (taskIds.length > this.maxPerClient) return `a listen stream may watch at most ${this.maxPerClient} tasks`;
      if (taskOwner !== undefined) honored.taskIds = taskIds;
    }
    const listener = new Listener(id, honored, send, this.listeners, taskOwner);
    this.listeners.add(listener);
    listener.deliver("notifications/subscriptions/acknowledged", `,"notifications":${JSON.stringify(honored)}`);
    return listener;
  }

  // ── fan-out ──

  resourceUpdated(uri: string): void {
    if (!this.announceable.resources) return;
    const subscribed = this.subscribers.get(uri);
    if (subscribed) {
      const line = `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":${JSON.stringify(uri)}}}`;
      for (const session of subscribed) session.notify(line, true);
    }
    let members: string | undefined;
    for (const listener of this.listeners) {
      if (!listener.uris?.has(uri)) continue;
      listener.deliver("notifications/resources/updated", (members ??= `,"uri":${JSON.stringify(uri)}`));
    }
  }

  /** A task changed (on any instance): its watchers that may see it hear `notifications/tasks` (`members`: the task). */
  taskChanged(taskId: string, owner: string, members: () => string): void {
    let text: string | undefined;
    for (const listener of this.listeners) {
      if (listener.taskIds?.has(taskId) && listener.taskOwner === owner) listener.deliver("notifications/tasks", (text ??= members()));
    }
  }

  listChanged(kind: ListKind): void {
    if (!this.announceable[kind]) return;
    const method = `notifications/${kind}/list_changed`;
    if (this.sessions.size > 0) {
      const line = `{"jsonrpc":"2.0","method":"${method}"}`;
      for (const session of this.sessions.keys()) session.notify(line, true);
    }
    const wanted = `${kind}ListChanged` as const;
    for (const listener of this.listeners) if (listener.filter[wanted]) listener.deliver(method, "");
  }
}

/** The distinct strings of `value`, or undefined when it is not an array of strings. */
function distinctStrings(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === "string") ? [...new Set(value as string[])] : undefined;
}

/** One `subscriptions/listen` stream (2026 era). */
export class Listener {
  readonly uris: ReadonlySet<string> | undefined;
  readonly taskIds: ReadonlySet<string> | undefined;
  private closed = false;

  constructor(
    readonly id: RequestId,
    readonly filter: Readonly<SubscriptionFilter>,
    private readonly send: (line: string) => unknown,
    private readonly registry: Set<Listener>,
    /** Whose tasks it may watch. */
    readonly taskOwner?: string,
  ) {
    this.uris = filter.resourceSubscriptions && new Set(filter.resourceSubscriptions);
    this.taskIds = filter.taskIds && new Set(filter.taskIds);
  }

  /** Sends `method` with `_meta` naming this subscription, followed by `members` (`,"key":value…`). */
  deliver(method: string, members: string): void {
    if (this.closed) return;
    try {
      const sent = this.send(`{"jsonrpc":"2.0","method":"${method}","params":{"_meta":{"${META_SUBSCRIPTION_ID}":${idJson(this.id)}}${members}}}`);
      if (sent instanceof Promise) sent.catch(() => {});
    } catch {
      // best effort: the transport reports its own failures
    }
  }

  /** Stops delivery (the client cancelled, the stream went away, or the server shuts down). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.registry.delete(this);
  }
}
