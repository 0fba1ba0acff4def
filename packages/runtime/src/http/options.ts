/**
 * The options of the Streamable HTTP transport, resolved in one place into one fully-defaulted object.
 * Defaults are the secure ones: loopback Host names only, same-host Origins only, bounded bodies, bounded
 * session table, CORS off.
 */
import type { AuthInfo } from "../handler.js";
import type { Bus } from "../state/bus.js";
import type { SessionStore } from "../state/sessions.js";
import { InMemoryEventStore, type EventStore } from "./event-store.js";

export type { AuthInfo };

/** What the `authenticate` hook sees of a request. */
export interface AuthRequest {
  readonly method: string;
  readonly path: string;
  /** A request header (case-insensitive), or `undefined`. */
  header(name: string): string | undefined;
}

/**
 * Thrown (or rejected) by an `authenticate` hook: the request is answered 401 with a `WWW-Authenticate`
 * challenge. `error` is the RFC 6750 error code (`invalid_token` …), `description` its text.
 */
export class AuthError extends Error {
  override name = "AuthError";
  constructor(
    message: string,
    readonly error: "invalid_request" | "invalid_token" | "insufficient_scope" = "invalid_token",
  ) {
    super(message);
  }
}

/** Resolves to the caller's identity, or `undefined` for an anonymous request (answered 401). */
export type Authenticate = (request: AuthRequest) => AuthInfo | undefined | Promise<AuthInfo | undefined>;

export interface CorsOptions {
  /** Origins allowed to call cross-origin (exact `scheme://host[:port]`), or `"*"`. */
  origins: readonly string[] | "*";
  /** Preflight cache lifetime in seconds (default 600). */
  maxAgeS?: number;
}

export type ResponseMode = "auto" | "json" | "sse";

export interface HttpOptions {
  /** The MCP endpoint path (default `/mcp`). Requests elsewhere get 404. */
  path?: string;
  /**
   * 2025 era: `false` serves without sessions (no `Mcp-Session-Id`, no GET stream, no resumability), so
   * any instance can answer any request. The 2026 era is always stateless.
   */
  sessions?: boolean;
  /** 2025 era: a session without traffic for this long is closed (default 30 minutes). */
  sessionIdleMs?: number;
  /** 2025 era: at most this many sessions at once; a new one beyond it gets 503 (default 10,000). */
  maxSessions?: number;
  /** Largest request body accepted, in bytes (default 4 MiB); larger ones get 413. */
  maxBodyBytes?: number;
  /**
   * Host names (without port) accepted in the `Host` header, against DNS rebinding. Default: `localhost`,
   * `127.0.0.1`, `[::1]` (and the bound host when `serve()` binds a specific one). `"*"` turns the check off.
   */
  allowedHosts?: readonly string[] | "*";
  /**
   * Origins (`scheme://host[:port]`) accepted in the `Origin` header; requests without `Origin` (non-browser
   * clients) always pass. Default: origins whose host is an allowed host. `"*"` turns the check off.
   */
  allowedOrigins?: readonly string[] | "*";
  /** Cross-origin access for browser clients; off by default. */
  cors?: CorsOptions | false;
  /** Authentication; `bearerAuth(verify)` builds one. Off by default. */
  authenticate?: Authenticate;
  /** `resource_metadata` of the 401 challenge (RFC 9728 Protected Resource Metadata URL). */
  resourceMetadataUrl?: string;
  /**
   * `auto` (default): a JSON response, unless the request sends something before its result (progress,
   * logs, server→client requests), which turns its response into an SSE stream. `json`: always JSON
   * (such messages are dropped). `sse`: always a stream.
   */
  responseMode?: ResponseMode;
  /** 2025 era: where SSE events are kept for `Last-Event-ID` resumption; `false` disables it. */
  eventStore?: EventStore | false;
  /**
   * 2025 era: where sessions are remembered beyond this instance (default: nowhere, each instance serves the
   * sessions it opened). With a shared store (Redis) and a shared `bus`, any instance serves any session.
   */
  sessionStore?: SessionStore;
  /** Carries what concerns a session held by another instance (its end, answers, stream messages). */
  bus?: Bus;
  /** SSE comment interval on long-lived streams (GET, `subscriptions/listen`), in ms (default 15,000). */
  keepAliveMs?: number;
  /** `retry` hint (ms) sent with the priming event of resumable streams (default 1,000). */
  retryMs?: number;
  /**
   * The time in ms, for session expiry (tests advance their own). Default: the system clock; under `serve()`
   * read at most once a second (or every twentieth of `sessionIdleMs`) while requests come, so a session
   * expires within that of its time (clock.ts).
   */
  clock?: () => number;
}

export interface ResolvedHttpOptions {
  readonly path: string;
  readonly sessions: boolean;
  readonly sessionIdleMs: number;
  readonly maxSessions: number;
  readonly maxBodyBytes: number;
  /** Lower-cased host names, or `undefined` when any host is allowed. */
  readonly allowedHosts: ReadonlySet<string> | undefined;
  /** Lower-cased origins, or `undefined` when any origin is allowed. */
  readonly allowedOrigins: ReadonlySet<string> | undefined;
  readonly cors: Readonly<Required<CorsOptions>> | undefined;
  readonly authenticate: Authenticate | undefined;
  readonly resourceMetadataUrl: string | undefined;
  readonly responseMode: ResponseMode;
  readonly eventStore: EventStore | undefined;
  readonly sessionStore: SessionStore | undefined;
  readonly bus: Bus | undefined;
  readonly keepAliveMs: number;
  readonly retryMs: number;
  readonly clock: () => number;
}

export const LOOPBACK_HOSTS: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];

export function resolveHttpOptions(options: HttpOptions = {}): ResolvedHttpOptions {
  const path = options.path ?? "/mcp";
  if (!path.startsWith("/")) throw new RangeError(`path must start with "/", got "${path}"`);
  const sessions = options.sessions ?? true;
  const resolved: ResolvedHttpOptions = {
    path,
    sessions,
    sessionIdleMs: positive("sessionIdleMs", options.sessionIdleMs ?? 30 * 60_000),
    maxSessions: positive("maxSessions", options.maxSessions ?? 10_000),
    maxBodyBytes: positive("maxBodyBytes", options.maxBodyBytes ?? 4 * 1024 * 1024),
    allowedHosts: options.allowedHosts === "*" ? undefined : new Set((options.allowedHosts ?? LOOPBACK_HOSTS).map((host) => host.toLowerCase())),
    allowedOrigins: options.allowedOrigins === "*" ? undefined : new Set((options.allowedOrigins ?? []).map((origin) => origin.toLowerCase())),
    cors: options.cors ? { origins: options.cors.origins, maxAgeS: options.cors.maxAgeS ?? 600 } : undefined,
    authenticate: options.authenticate,
    resourceMetadataUrl: options.resourceMetadataUrl,
    responseMode: options.responseMode ?? "auto",
    eventStore: sessions && options.eventStore !== false ? (options.eventStore ?? new InMemoryEventStore()) : undefined,
    sessionStore: sessions ? options.sessionStore : undefined,
    bus: options.bus,
    keepAliveMs: nonNegative("keepAliveMs", options.keepAliveMs ?? 15_000),
    retryMs: nonNegative("retryMs", options.retryMs ?? 1000),
    clock: options.clock ?? Date.now,
  };
  if (!["auto", "json", "sse"].includes(resolved.responseMode)) throw new RangeError(`responseMode must be auto, json or sse, got "${resolved.responseMode}"`);
  return resolved;
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

function nonNegative(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  return value;
}
