/**
 * One client channel (stdio: the process; HTTP: a 2025-era session, or one exchange): the message
 * boundary, the era of each request, and the requests in flight.
 *
 *   message ─▶ shape check ─▶ era: 2026 `_meta` envelope │ 2025 session │ pre-`initialize` ─▶ method table
 *           ─▶ serialized response (or none: notifications, cancelled requests)
 */
import { CallTable } from "./calls.js";
import type { Cancellable, Held, Holder, LegacySession, Reply, RequestContext, Sink } from "./context.js";
import type { Core } from "./core.js";
import { isLegacy, isModern, LATEST_LEGACY_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS, type Era } from "./era.js";
import { logInternalError, refuse, resultResponse } from "./errors.js";
import { isCheckedEnvelope } from "./json.js";
import type { Invocation } from "./invocation.js";
import type { Lazy } from "./lazy.js";
import { answer, type MethodHost } from "./methods.js";
import { Pending } from "./pending.js";
import type { Primitives } from "./primitives.js";
import {
  clip,
  describeValue,
  envelopeProblem,
  isImplementation,
  isObject,
  isRequestId,
  LOG_LEVEL_RANK,
  logLevelRank,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
  type RequestId,
} from "./protocol.js";

/** How a connection is used. */
export interface ConnectOptions {
  /**
   * The connection carries one exchange and is dropped (stateless HTTP, 2026-era HTTP): it is never told
   * about changes outside a request, so it is not counted as a session and cannot `resources/subscribe`.
   */
  ephemeral?: boolean;
  /**
   * Starts in a 2025-era session without an `initialize` (stateless HTTP, where every request stands alone
   * and names its version in a header).
   */
  session?: Readonly<Pick<LegacySession, "protocolVersion">> & Partial<Pick<LegacySession, "clientInfo" | "clientCapabilities">>;
  /** The id of the HTTP session this connection serves (its tasks belong to the session on every instance). */
  sessionId?: string;
}

export class Connection implements MethodHost, Holder {
  /** Set by `initialize` (or `ConnectOptions.session`); 2026-era requests never need it. */
  #session: LegacySession | undefined;
  #logThreshold: number = LOG_LEVEL_RANK.info;
  /** Handler-backed requests in progress, by id, for `notifications/cancelled`. */
  readonly #inFlight = new CallTable<Cancellable>();
  /** The promise `start` last returned: an invocation's, which never rejects (see `handle`). */
  #unfailing: Promise<string | undefined> | undefined = undefined;
  /**
   * Requests held open with no handler running, by id: 2026-era `subscriptions/listen` streams, 2025-era
   * `tasks/result` waits for a task's end. They do not keep the connection busy, and their ids are in use. Made
   * by the first: most connections never hold one (an HTTP session, or a 2026 HTTP request, has a connection each).
   */
  #held: Map<RequestId, Held> | undefined;
  #closed = false;
  readonly ephemeral: boolean;
  readonly sessionId: string | undefined;

  constructor(
    readonly services: Core,
    private readonly sink: Sink,
    options: ConnectOptions = {},
  ) {
    this.ephemeral = options.ephemeral === true;
    this.sessionId = options.sessionId;
    const session = options.session;
    if (session) {
      this.#session = { protocolVersion: session.protocolVersion, clientInfo: session.clientInfo, clientCapabilities: session.clientCapabilities ?? {}, initialized: true };
    }
  }

  /** What `initialize` established (2025 era), if it was sent. */
  get session(): LegacySession | undefined {
    return this.#session;
  }

  /** 2025 era: the minimum level of `notifications/message`, set by `logging/setLevel` (default info). */
  get logThreshold(): number {
    return this.#logThreshold;
  }

  /** Requests still being worked on. */
  get pending(): number {
    return this.#inFlight.size;
  }

  /**
   * Handles one parsed JSON-RPC message (or a batch). `sink` receives the notifications of this request
   * (default: the connection's). Returns the serialized response, if there is one.
   */
  handle(message: unknown, sink: Sink = this.sink): Reply {
    // The message boundary: whatever a message does to the runtime costs that message one error response,
    // never the connection (a stdio process, every session of an HTTP server). Every error response built on
    // the way is reported to the sink by its kind (HTTP takes its status from that). A call's own promise (or
    // `Pending`) answers its failures itself (Invocation.crashed) and is passed on as it is.
    try {
      const reply = this.#dispatch(message, sink);
      const unfailing = this.#unfailing;
      this.#unfailing = undefined;
      if (typeof reply !== "object" || reply instanceof Pending || reply === unfailing) return reply;
      return reply.catch((error: unknown) => crashed(sink, error, message));
    } catch (error) {
      return crashed(sink, error, message);
    }
  }

  /**
   * Cancels one request in flight (what `notifications/cancelled` does; an HTTP transport calls it when a
   * request's response stream closes). Returns whether there was such a request.
   */
  cancel(requestId: RequestId, reason?: unknown): boolean {
    const call = this.#inFlight.get(requestId);
    if (call) {
      call.cancel(reason);
      return true;
    }
    const held = this.#held?.get(requestId);
    if (!held) return false;
    this.#held?.delete(requestId);
    held.cancel(); // a cancelled request gets no response
    return true;
  }

  /**
   * Cancels every request in flight and waits up to `graceMs` for their handlers to wind down. Messages
   * arriving afterwards are ignored.
   */
  async close(graceMs = 0): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.services.subscriptions.removeSession(this);
    const held = this.#held;
    this.#held = undefined;
    for (const request of held?.values() ?? []) request.close();
    const running: PromiseLike<unknown>[] = [];
    for (const call of this.#inFlight.values()) {
      const handler = call.cancel("The connection is closing");
      if (handler) running.push(handler);
    }
    if (running.length > 0 && graceMs > 0) await settledWithin(running, graceMs);
  }

  // ── what requests in progress and the method table use (MethodHost) ──

  /**
   * A notification outside any request for this 2025-era session; `fanout`: a change notification every
   * instance delivers (list changes, resource updates, see `Sink.fanout`).
   */
  notify(line: string, fanout = false): void {
    if (this.#closed) return;
    try {
      const sent = fanout && this.sink.fanout ? this.sink.fanout(line) : this.sink.send(line);
      if (sent) sent.catch(() => {});
    } catch {
      // best effort: the transport reports its own failures
    }
  }

  /** Forgets a finished or cancelled call (its id may be reused at once). */
  release(call: Cancellable): void {
    this.#inFlight.delete(call);
  }

  setLogThreshold(rank: number): void {
    this.#logThreshold = rank;
  }

  start(ctx: RequestContext, invocation: Invocation | (() => Invocation | string)): Reply {
    if (this.#closed) return undefined;
    if (this.#inUse(ctx.id)) return idInUse(ctx);
    const started = typeof invocation === "function" ? invocation() : invocation;
    if (typeof started === "string") return refuse(ctx.sink, ctx.id, "invalidParams", started);
    this.#inFlight.add(started);
    const reply = started.run();
    if (reply instanceof Promise) this.#unfailing = reply;
    return reply;
  }

  /** Starts at once when the primitives runtime is loaded, else once it is. */
  startPrimitive(ctx: RequestContext, invocation: (primitives: Primitives) => Invocation | string): Reply {
    const { primitives } = this.services;
    const loaded = primitives.value;
    if (loaded) return this.start(ctx, () => invocation(loaded));
    return this.afterLoad(primitives, "the resources and prompts runtime", ctx, (ready) => this.start(ctx, () => invocation(ready)));
  }

  /**
   * Answers `ctx` with `run` once `runtime` (a part of this runtime loaded on first use, named `what`) is
   * loaded; a failed load answers -32603 and is said on stderr, and the next request loads it again. Callers
   * that find it loaded call `run` themselves, with no closure made. Meanwhile the request is in flight: its id
   * is in use, and cancelling it (the client, a transport whose client left, the connection closing) keeps it
   * from starting, with no response.
   */
  afterLoad<T>(runtime: Lazy<T>, what: string, ctx: RequestContext, run: (loaded: T) => Reply): Reply {
    if (this.#inUse(ctx.id)) return idInUse(ctx);
    const waiting: Cancellable = {
      requestId: ctx.id,
      nextInTable: undefined,
      cancel: () => void this.release(waiting),
    };
    this.#inFlight.add(waiting);
    return runtime.get().then(
      (loaded) => (this.#inFlight.delete(waiting) ? run(loaded) : undefined),
      (error: unknown) => {
        if (!this.#inFlight.delete(waiting)) return undefined;
        console.error(`[mcpgen] could not load ${what}:`, error);
        return refuse(ctx.sink, ctx.id, "internalError");
      },
    );
  }

  /**
   * 2026 era: `subscriptions/listen`, held open until the client cancels it (`notifications/cancelled`,
   * or the transport closing) — then it gets no response — or the connection closes — then it ends gracefully.
   */
  listen(ctx: RequestContext): Reply {
    const { id, params, sink } = ctx;
    if (this.#inUse(id)) return idInUse(ctx);
    let end: (response: string | undefined) => void = () => {};
    const ended = new Promise<string | undefined>((resolve) => (end = resolve));
    const opened = this.services.subscriptions.open(id, params?.notifications, (line) => sink.send(line), this.services.tasks.watcher(this, ctx));
    if (typeof opened === "string") return refuse(sink, id, "invalidParams", `Invalid params: ${opened}`);
    this.#hold(id, {
      cancel: () => {
        opened.close();
        end(undefined);
      },
      close: () => {
        opened.close();
        end(this.services.results.listenEnded(id)); // the server ends the subscription: a graceful result
      },
    });
    return ended;
  }

  hold(ctx: RequestContext, held: Held, ends: Promise<unknown>): string | undefined {
    if (this.#inUse(ctx.id)) return idInUse(ctx);
    if (this.#closed) {
      held.close();
      return undefined;
    }
    this.#hold(ctx.id, held);
    void ends.then(() => {
      if (this.#held?.get(ctx.id) === held) this.#held.delete(ctx.id);
    });
    return undefined;
  }

  #hold(id: RequestId, held: Held): void {
    (this.#held ??= new Map()).set(id, held);
  }

  #inUse(id: RequestId): boolean {
    return this.#inFlight.has(id) || this.#held?.has(id) === true;
  }

  // ── the message boundary ──

  #dispatch(message: unknown, sink: Sink): Reply {
    if (this.#closed) return undefined;
    if (Array.isArray(message)) return this.#batch(message, sink);
    if (!isObject(message)) return refuse(sink, undefined, "invalidRequest", "Invalid Request: expected a JSON-RPC message object");
    const { id, method, params } = message;
    const hasId = id !== undefined;
    if (typeof method !== "string") {
      // A response from the client, to a server→client request (ctx.elicit / ctx.sample, 2025 era); unknown ids are dropped.
      if (!("method" in message) && hasId && ("result" in message || "error" in message)) {
        this.services.outgoing.deliver(message, { connection: this, ephemeral: this.ephemeral, subject: sink.auth?.subject });
        return undefined;
      }
      return refuse(sink, isRequestId(id) ? id : undefined, "invalidRequest", 'Invalid Request: "method" must be a string');
    }
    if (message.jsonrpc !== "2.0") {
      return hasId ? refuse(sink, isRequestId(id) ? id : undefined, "invalidRequest", 'Invalid Request: "jsonrpc" must be "2.0"') : undefined;
    }
    if (!hasId) {
      this.#notification(method, params);
      return undefined;
    }
    if (!isRequestId(id)) return refuse(sink, undefined, "invalidRequest", "Invalid Request: id must be a string or an integer");
    if (params !== undefined && !isObject(params)) {
      return refuse(sink, id, "invalidRequest", 'Invalid Request: "params" must be an object');
    }
    return this.#request(id, method, params, sink);
  }

  /** Picks the request's era: its `_meta` envelope (2026), this connection's session (2025), or neither. */
  #request(id: RequestId, method: string, params: Record<string, unknown> | undefined, sink: Sink): Reply {
    const meta = params?._meta;
    if (meta !== undefined && !isObject(meta)) return refuse(sink, id, "invalidParams", 'Invalid params: "_meta" must be an object');
    if (method === "initialize") return this.#initialize(id, params, sink);

    const version = meta?.[META_PROTOCOL_VERSION];
    if (version !== undefined) {
      if (isModern(version)) {
        // An envelope a `MessageParser` hands out again was checked when it was remembered.
        const envelope = meta as Record<string, unknown>; // defined: it holds the version
        const problem = isCheckedEnvelope(envelope) ? undefined : envelopeProblem(envelope);
        if (problem) return refuse(sink, id, "invalidParams", `Invalid params: ${problem}`);
        return answer(this, this.#context(id, method, params, meta, "modern", version as string, sink));
      }
      // Inside a 2025 session the key is just metadata; outside it names a version we do not serve statelessly.
      if (!this.#session) {
        const requested = typeof version === "string" ? clip(version) : describeValue(version);
        return refuse(sink, id, "unsupportedProtocolVersion", `Unsupported protocol version: ${requested}`, {
          requested,
          supported: SUPPORTED_PROTOCOL_VERSIONS,
        });
      }
    }
    const session = this.#session;
    if (session) return answer(this, this.#context(id, method, params, meta, "legacy", session.protocolVersion, sink));
    if (method === "ping") return resultResponse(id, "{}"); // the one request allowed before initialize
    return refuse(
      sink,
      id,
      "invalidParams",
      `Invalid params: missing _meta["${META_PROTOCOL_VERSION}"]; send it on every request (protocol 2026-07-28) or send initialize first (2025 protocols)`,
    );
  }

  #context(id: RequestId, method: string, params: Record<string, unknown> | undefined, meta: unknown, era: Era, version: string, sink: Sink): RequestContext {
    return { conn: this, id, method, params, meta: meta as Record<string, unknown> | undefined, era, version, sink };
  }

  /** Answers the client's version when we speak it, else the latest 2025 version. */
  #initialize(id: RequestId, params: Record<string, unknown> | undefined, sink: Sink): Reply {
    if (this.#session) return refuse(sink, id, "invalidRequest", "Invalid Request: initialize was already received on this connection");
    const requested = params?.protocolVersion;
    if (typeof requested !== "string") return refuse(sink, id, "invalidParams", 'Invalid params: initialize needs a string "protocolVersion"');
    const version = isLegacy(requested) ? requested : LATEST_LEGACY_PROTOCOL_VERSION;
    const clientInfo = params?.clientInfo;
    const capabilities = params?.capabilities;
    this.#session = {
      protocolVersion: version,
      clientInfo: isImplementation(clientInfo) ? clientInfo : undefined,
      clientCapabilities: isObject(capabilities) ? capabilities : {},
      initialized: false,
    };
    if (!this.ephemeral) this.services.subscriptions.addSession(this);
    return resultResponse(id, this.services.results.initialize(version));
  }

  #notification(method: string, params: unknown): void {
    if (method === "notifications/cancelled") {
      // Unknown or finished ids are ignored: cancellation races completion by design.
      if (isObject(params) && isRequestId(params.requestId)) this.cancel(params.requestId, params.reason);
    } else if (method === "notifications/initialized") {
      if (this.#session) this.#session.initialized = true;
    }
    // Other notifications (progress, roots/list_changed, unknown ones) need nothing from this server.
  }

  /** JSON-RPC batches (2025-03-26 allows them): answered together, notifications contributing nothing. */
  #batch(messages: unknown[], sink: Sink): Reply {
    if (messages.length === 0) return refuse(sink, undefined, "invalidRequest", "Invalid Request: empty batch");
    const replies = messages.map((message) =>
      Array.isArray(message) ? refuse(sink, undefined, "invalidRequest", "Invalid Request: nested batch") : this.handle(message, sink),
    );
    return Promise.all(replies).then((all) => {
      const responses = all.filter((reply): reply is string => reply !== undefined);
      return responses.length > 0 ? `[${responses.join(",")}]` : undefined;
    });
  }
}

function idInUse({ sink, id }: RequestContext): string {
  return refuse(sink, id, "invalidRequest", `Invalid Request: id ${typeof id === "string" ? JSON.stringify(clip(id)) : String(id)} is already in use by a request in progress`);
}

/** A runtime failure while handling `message`: logged here, answered with -32603 (requests only). */
function crashed(sink: Sink, error: unknown, message: unknown): string | undefined {
  logInternalError(error);
  if (!isObject(message)) return refuse(sink, undefined, "internalError");
  if (message.id === undefined) return undefined; // a notification (or a client response) is never answered
  return refuse(sink, isRequestId(message.id) ? message.id : undefined, "internalError");
}

/** Resolves when all `promises` settled or `ms` passed, whichever comes first. */
export function settledWithin(promises: PromiseLike<unknown>[], ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref?.();
    void Promise.allSettled(promises).then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
