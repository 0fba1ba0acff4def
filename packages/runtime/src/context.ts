/**
 * The values passed between the core's parts, as types only: what a transport gives a connection (`Sink`)
 * and gets back (`Reply`), and the one request context every handler-backed request is built from. Nothing
 * here imports the connection or the server, so the parts below them depend on this and on nothing above.
 */
import type { TableMember } from "./calls.js";
import type { Era } from "./era.js";
import type { AuthInfo, ListKind } from "./handler.js";
import type { ErrorKind } from "./errors.js";
import type { InputMethod, Outgoing, RequestStateCodec } from "./input.js";
import type { ResolvedServerOptions } from "./options.js";
import type { Pending } from "./pending.js";
import type { RequestId } from "./protocol.js";
import type { Results } from "./results.js";

/** Where a connection's server→client messages go (for stdio: stdout; for HTTP: the request's stream). */
export interface Sink {
  /**
   * Delivers one serialized message. May return a promise while the transport is congested; it resolves
   * once the transport takes more (`ctx.progress()` / `ctx.log()` hand it to the handler to await).
   */
  send(message: string): void | Promise<void>;
  /**
   * Delivers a change notification (list changed, resource updated) that every instance of a server hears
   * at once: a transport whose sessions live on several instances sends it from one of them only. Absent:
   * `send`.
   */
  fanout?(message: string): void;
  /** Who sent the request this sink belongs to (HTTP with an `authenticate` hook); handlers see `ctx.auth`. */
  readonly auth?: AuthInfo | undefined;
  /** `false` when messages sent before the response are dropped (HTTP JSON responses): no server→client requests. */
  readonly streaming?: boolean;
  /** Told the kind of error the request is answered with, if it is (HTTP takes the status from the error table). */
  failed?(kind: ErrorKind): void;
}

/** A response to send, none (notifications, cancelled requests), or either later (`Pending`: a call waiting for its handler). */
export type Reply = string | undefined | Promise<string | undefined> | Pending;

/** What an `initialize` established (2025 era). */
export interface LegacySession {
  readonly protocolVersion: string;
  readonly clientInfo: Readonly<{ name: string; version: string }> | undefined;
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  initialized: boolean;
}

/**
 * A request in progress that `notifications/cancelled` (or a closing connection) can stop; its connection's
 * `CallTable` links it to the next call of its bucket.
 */
export interface Cancellable extends TableMember {
  /** Stops the request; returns the handler's promise, if one runs, for a shutdown grace period. */
  cancel(reason: unknown): PromiseLike<unknown> | undefined;
}

/**
 * A request held open with no handler running (a 2026-era `subscriptions/listen`, a 2025-era `tasks/result`
 * waiting for its task): what ends it when the client cancels it (no response), and when the connection closes.
 */
export interface Held {
  cancel(): void;
  close(): void;
}

/** The connection a request may be held open on. */
export interface Holder {
  /**
   * Holds the request `ctx` open until `ends` settles (it then answers on its own), the client cancels it or
   * the connection closes (`held` is told which). Returns the refusal to answer instead when its id is in use.
   */
  hold(ctx: RequestContext, held: Held, ends: Promise<unknown>): string | undefined;
}

/** What a request in progress uses of the server: options, serializers, input rounds, change signals. */
export interface Services {
  readonly options: ResolvedServerOptions;
  readonly results: Results;
  /** 2025 era: server→client requests awaiting the client's response. */
  readonly outgoing: Outgoing;
  /** 2026 era: seals and opens `requestState`. */
  readonly requestState: RequestStateCodec;
  resourceUpdated(uri: string): void;
  listChanged(kind: ListKind): void;
}

/** What a request in progress uses of its connection. */
export interface Channel {
  readonly services: Services;
  /** 2025 era: set by `initialize`. */
  readonly session: LegacySession | undefined;
  /** 2025 era: the minimum level of `notifications/message`. */
  readonly logThreshold: number;
  /** One exchange only (stateless HTTP). */
  readonly ephemeral: boolean;
  /** The HTTP session served, when there is one (the same on every instance that serves it). */
  readonly sessionId?: string | undefined;
  /** Forgets a finished or cancelled request (its id may be reused at once). */
  release(call: Cancellable): void;
}

/** One request, passed whole from the method table to the request it starts. */
export interface RequestContext {
  readonly conn: Channel;
  readonly id: RequestId;
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>> | undefined;
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  readonly era: Era;
  /** The protocol version: the session's (2025 era) or the request's `_meta` (2026 era). */
  readonly version: string;
  readonly sink: Sink;
}

/** What an `Invocation` asks of the task it may become (see invocation.ts). */
export interface TaskHooks {
  /** The call runs as a task (its response no longer goes to the request). */
  readonly adopted: boolean;
  /** The handler is about to be called (its tool is loaded and its input valid). */
  started(): void;
  /** 2026 era: an ask the task answers (through `tasks/update`); `undefined`: ask as usual. */
  ask(method: InputMethod, key: string, params: Record<string, unknown>, beforeTask: boolean): Promise<unknown> | undefined;
  /** 2025 era: a server→client request of this call is waiting for the client until `answered` settles. */
  waiting(answered: Promise<unknown>): void;
}
