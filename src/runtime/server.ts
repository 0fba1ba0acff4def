/**
 * The transport-agnostic core. A `Server` holds what is the same for every client (the registry, its
 * serialized answers, the loaded tools); a `Connection` holds what one client channel negotiated (a
 * 2025-era session) and its requests in flight. A transport parses a message, hands it to
 * `Connection.handle` with a `Sink` for the notifications of that request, and sends back the
 * serialized response it gets.
 *
 *   message ─▶ shape check ─▶ era: 2026 `_meta` envelope │ 2025 session │ pre-`initialize`
 *           ─▶ method ─▶ serialized response (or none: notifications, cancelled requests)
 */
import { ToolCall } from "./call.js";
import { errorResponse, resultResponse } from "./errors.js";
import type { AuthInfo, CallToolResult, ToolHandler } from "./handler.js";
import {
  isObject,
  isRequestId,
  LATEST_LEGACY_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  LOG_LEVEL_RANK,
  logLevelRank,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  MODERN_PROTOCOL_VERSIONS,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Era,
  type RequestId,
} from "./protocol.js";
import type { Registry, ToolEntry, Validate } from "./registry.js";
import { ToolPages } from "./list.js";
import { Outgoing, RequestStateCodec } from "./input.js";

/** Where a connection's server→client messages go (for stdio: stdout; for HTTP: the request's stream). */
export interface Sink {
  /**
   * Delivers one serialized message. May return a promise while the transport is congested; it resolves
   * once the transport takes more (`ctx.progress()` / `ctx.log()` hand it to the handler to await).
   */
  send(message: string): void | Promise<void>;
  /** Who sent the request this sink belongs to (HTTP with an `authenticate` hook); handlers see `ctx.auth`. */
  readonly auth?: AuthInfo | undefined;
  /** `false` when messages sent before the response are dropped (HTTP JSON responses): no server→client requests. */
  readonly streaming?: boolean;
}

/** A response to send, none (notifications, cancelled requests), or either later. */
export type Reply = string | undefined | Promise<string | undefined>;

export interface ErrorContext {
  readonly tool: string;
  readonly requestId: RequestId;
}

export interface ServerOptions {
  /** Tools per `tools/list` page (default 100). */
  pageSize?: number;
  /** 2026 era: `ttlMs` on `server/discover` and `tools/list` results (default 300 000). */
  ttlMs?: number;
  /** 2026 era: `cacheScope` of those results (default `"public"`: the registry is the same for every caller). */
  cacheScope?: "public" | "private";
  /**
   * Receives failures that the client only sees summarized (handler crashes, invalid handler output).
   * Default: `console.error`, which the stdio entry point keeps on stderr.
   */
  onError?: (error: unknown, context: ErrorContext) => void;
  /**
   * 2026 era: the HMAC key sealing `requestState` (answers of earlier `ctx.elicit` / `ctx.sample` rounds).
   * Default: random per process; give every instance behind a load balancer the same secret.
   */
  requestStateSecret?: string | Uint8Array;
  /** 2026 era: how long a `requestState` stays valid, in ms (default 600 000). */
  requestStateTtlMs?: number;
}

export type ResolvedServerOptions = Readonly<Required<ServerOptions>>;

/** Fills in defaults and checks ranges; the only place options are resolved. */
export function resolveServerOptions(options: ServerOptions = {}): ResolvedServerOptions {
  const resolved: Required<ServerOptions> = {
    pageSize: options.pageSize ?? 100,
    ttlMs: options.ttlMs ?? 300_000,
    cacheScope: options.cacheScope ?? "public",
    onError: options.onError ?? ((error, { tool }) => console.error(`[mcpgen] tool "${tool}" failed:`, error)),
    requestStateSecret: options.requestStateSecret ?? crypto.getRandomValues(new Uint8Array(32)),
    requestStateTtlMs: options.requestStateTtlMs ?? 600_000,
  };
  if (!Number.isSafeInteger(resolved.pageSize) || resolved.pageSize < 1) {
    throw new RangeError(`pageSize must be a positive integer, got ${resolved.pageSize}`);
  }
  if (!Number.isSafeInteger(resolved.ttlMs) || resolved.ttlMs < 0) {
    throw new RangeError(`ttlMs must be a non-negative integer, got ${resolved.ttlMs}`);
  }
  if (!Number.isSafeInteger(resolved.requestStateTtlMs) || resolved.requestStateTtlMs < 1) {
    throw new RangeError(`requestStateTtlMs must be a positive integer, got ${resolved.requestStateTtlMs}`);
  }
  return resolved;
}

/** A tool's validators and handler, loaded on first call. */
export interface LoadedTool {
  readonly input: Validate;
  readonly output: Validate | undefined;
  readonly handler: ToolHandler<unknown, unknown>;
}

/** @internal The runtime's per-tool state. */
export interface ToolSlot {
  readonly entry: ToolEntry;
  /** The tool declares an `outputSchema`: its handler returns a structured value. */
  readonly structured: boolean;
  loaded: LoadedTool | undefined;
  loading: Promise<LoadedTool> | undefined;
}

export function createServer(registry: Registry, options?: ServerOptions): Server {
  return new Server(registry, options);
}

export class Server {
  readonly options: ResolvedServerOptions;
  /** @internal */
  readonly slots = new Map<string, ToolSlot>();
  /** @internal */
  readonly pages: ToolPages;
  /** @internal 2025 era: server→client requests awaiting the client's response. */
  readonly outgoing = new Outgoing();
  /** @internal 2026 era: seals and opens `requestState`. */
  readonly requestState: RequestStateCodec;
  /** `"_meta":{"io.modelcontextprotocol/serverInfo":{…}}`, spliced into every 2026-era result. */
  private readonly serverInfoMeta: string;
  private readonly discoverResult: string;
  private readonly initializeResults = new Map<string, string>();

  constructor(
    readonly registry: Registry,
    options?: ServerOptions,
  ) {
    if (registry.format !== 1) throw new Error(`Unsupported registry format ${String(registry.format)}; rebuild with a matching mcpgen`);
    this.options = resolveServerOptions(options);
    this.requestState = new RequestStateCodec(this.options.requestStateSecret, this.options.requestStateTtlMs);
    for (const entry of registry.tools) {
      this.slots.set(entry.name, { entry, structured: entry.wire.outputSchema !== undefined, loaded: undefined, loading: undefined });
    }
    this.serverInfoMeta = `"_meta":{${JSON.stringify(META_SERVER_INFO)}:${JSON.stringify(registry.server)}}`;
    const cache = `"ttlMs":${this.options.ttlMs},"cacheScope":${JSON.stringify(this.options.cacheScope)}`;
    this.pages = new ToolPages(registry, this.options.pageSize, `${cache},${this.serverInfoMeta}`);
    const discover = {
      resultType: "complete",
      supportedVersions: SUPPORTED_PROTOCOL_VERSIONS,
      capabilities: this.capabilities("modern"),
      ...(registry.instructions !== undefined && { instructions: registry.instructions }),
    };
    this.discoverResult = `${JSON.stringify(discover).slice(0, -1)},${cache},${this.serverInfoMeta}}`;
  }

  /** Opens a connection; a 2025-era session lives on it (stdio: the process; HTTP: `Mcp-Session-Id`). */
  connect(sink: Sink): Connection {
    return new Connection(this, sink);
  }

  /** Capabilities assembled from the registry. */
  capabilities(era: Era): Record<string, unknown> {
    const capabilities: Record<string, unknown> = {};
    // 2026: list changes only flow on `subscriptions/listen`, which this runtime does not serve yet.
    if (this.registry.tools.length > 0) capabilities.tools = era === "legacy" ? { listChanged: true } : {};
    capabilities.logging = {}; // handlers may call ctx.log()
    return capabilities;
  }

  /** @internal */
  discover(): string {
    return this.discoverResult;
  }

  /** @internal */
  initializeResult(version: string): string {
    let result = this.initializeResults.get(version);
    if (result === undefined) {
      result = JSON.stringify({
        protocolVersion: version,
        capabilities: this.capabilities("legacy"),
        serverInfo: this.registry.server,
        ...(this.registry.instructions !== undefined && { instructions: this.registry.instructions }),
      });
      this.initializeResults.set(version, result);
    }
    return result;
  }

  /** @internal Serializes a 2026-era `tools/call` result: `resultType` first, `serverInfo` in `_meta`. */
  modernResult(result: CallToolResult): string {
    if (result._meta === undefined) return this.modernResultOf(JSON.stringify(result).slice(1, -1));
    return JSON.stringify({
      resultType: "complete",
      ...result,
      _meta: { ...result._meta, [META_SERVER_INFO]: this.registry.server },
    });
  }

  /** @internal The same for a result without `_meta` whose members are serialized already (`"content":[…],…`). */
  modernResultOf(members: string): string {
    return `{"resultType":"complete",${members},${this.serverInfoMeta}}`;
  }

  /** @internal Serializes a 2026-era `input_required` result (multi round-trip requests). */
  inputRequiredResult(inputRequests: Record<string, unknown>, requestState: string): string {
    return `{"resultType":"input_required","inputRequests":${JSON.stringify(inputRequests)},"requestState":${JSON.stringify(requestState)},${this.serverInfoMeta}}`;
  }

  /** @internal Loads a tool's validators and handler once; a failed load is retried by the next call. */
  load(slot: ToolSlot): Promise<LoadedTool> {
    slot.loading ??= Promise.all([slot.entry.validators(), slot.entry.handler()]).then(
      ([validators, module]) => {
        if (typeof module.default !== "function") {
          throw new TypeError(`the handler module of tool "${slot.entry.name}" has no default-exported function`);
        }
        return (slot.loaded = { input: validators.input, output: validators.output, handler: module.default });
      },
      (error: unknown) => {
        slot.loading = undefined;
        throw error;
      },
    );
    return slot.loading;
  }
}

/** What an `initialize` established (2025 era). */
export interface LegacySession {
  readonly protocolVersion: string;
  readonly clientInfo: Readonly<{ name: string; version: string }> | undefined;
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  initialized: boolean;
}

export class Connection {
  /** Set by `initialize`; 2026-era requests never need it. */
  session: LegacySession | undefined;
  /** 2025 era: the minimum level of `notifications/message`, set by `logging/setLevel` (default info). */
  logThreshold: number = LOG_LEVEL_RANK.info;
  /** @internal `tools/call` requests in progress, by id, for `notifications/cancelled`. */
  inFlight = new Map<RequestId, ToolCall>();
  /** Registrations since `inFlight` was last replaced (see `track`). */
  private registrations = 0;
  private closed = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    readonly server: Server,
    private readonly sink: Sink,
  ) {}

  /** Requests still being worked on. */
  get pending(): number {
    return this.inFlight.size;
  }

  /**
   * Handles one parsed JSON-RPC message (or a batch). `sink` receives the notifications of this request
   * (default: the connection's). Returns the serialized response, if there is one.
   */
  handle(message: unknown, sink: Sink = this.sink): Reply {
    if (this.closed) return undefined;
    if (Array.isArray(message)) return this.batch(message, sink);
    if (!isObject(message)) return errorResponse(undefined, "invalidRequest", "Invalid Request: expected a JSON-RPC message object");
    const { id, method, params } = message;
    const hasId = id !== undefined;
    if (typeof method !== "string") {
      // A response from the client, to a server→client request (ctx.elicit / ctx.sample, 2025 era); unknown ids are dropped.
      if (!("method" in message) && hasId && ("result" in message || "error" in message)) {
        this.server.outgoing.deliver(message);
        return undefined;
      }
      return errorResponse(isRequestId(id) ? id : undefined, "invalidRequest", 'Invalid Request: "method" must be a string');
    }
    if (message.jsonrpc !== "2.0") {
      return hasId ? errorResponse(isRequestId(id) ? id : undefined, "invalidRequest", 'Invalid Request: "jsonrpc" must be "2.0"') : undefined;
    }
    if (!hasId) {
      this.notification(method, params);
      return undefined;
    }
    if (!isRequestId(id)) return errorResponse(undefined, "invalidRequest", "Invalid Request: id must be a string or an integer");
    if (params !== undefined && !isObject(params)) {
      return errorResponse(id, "invalidRequest", 'Invalid Request: "params" must be an object');
    }
    return this.request(id, method, params, sink);
  }

  /**
   * Cancels one request in flight (what `notifications/cancelled` does; an HTTP transport calls it when a
   * request's response stream closes). Returns whether there was such a request.
   */
  cancel(requestId: RequestId, reason?: unknown): boolean {
    const call = this.inFlight.get(requestId);
    call?.cancel(reason);
    return call !== undefined;
  }

  /** Resolves once no request is in flight any more, or after `ms`, whichever comes first. */
  drain(ms: number): Promise<void> {
    if (this.inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref?.();
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** @internal Forgets a finished or cancelled call (its id may be reused at once). */
  release(call: ToolCall): void {
    if (this.inFlight.get(call.requestId) !== call) return;
    this.inFlight.delete(call.requestId);
    if (this.inFlight.size === 0 && this.idleWaiters.length > 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const wake of waiters) wake();
    }
  }

  /**
   * Cancels every request in flight and waits up to `graceMs` for their handlers to wind down. Messages
   * arriving afterwards are ignored.
   */
  async close(graceMs = 0): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const running: PromiseLike<unknown>[] = [];
    for (const call of [...this.inFlight.values()]) {
      const handler = call.cancel("The connection is closing");
      if (handler) running.push(handler);
    }
    if (running.length > 0 && graceMs > 0) await settledWithin(running, graceMs);
  }

  private request(id: RequestId, method: string, params: Record<string, unknown> | undefined, sink: Sink): Reply {
    const meta = params?._meta;
    if (meta !== undefined && !isObject(meta)) return errorResponse(id, "invalidParams", 'Invalid params: "_meta" must be an object');
    if (method === "initialize") return this.initialize(id, params);

    const version = meta?.[META_PROTOCOL_VERSION];
    if (version !== undefined) {
      if (typeof version === "string" && MODERN_PROTOCOL_VERSIONS.includes(version)) {
        return this.modern(id, method, params, meta as Record<string, unknown>, version, sink);
      }
      // Inside a 2025 session the key is just metadata; outside it names a version we do not serve statelessly.
      if (!this.session) {
        return errorResponse(id, "unsupportedProtocolVersion", `Unsupported protocol version: ${String(version)}`, {
          requested: String(version),
          supported: SUPPORTED_PROTOCOL_VERSIONS,
        });
      }
    }
    if (this.session) return this.legacy(id, method, params, meta as Record<string, unknown> | undefined, sink);
    if (method === "ping") return resultResponse(id, "{}"); // the one request allowed before initialize
    return errorResponse(
      id,
      "invalidParams",
      `Invalid params: missing _meta["${META_PROTOCOL_VERSION}"]; send it on every request (protocol 2026-07-28) or send initialize first (2025 protocols)`,
    );
  }

  /** 2026 era: everything the request needs is in its `_meta`. */
  private modern(
    id: RequestId,
    method: string,
    params: Record<string, unknown> | undefined,
    meta: Record<string, unknown>,
    version: string,
    sink: Sink,
  ): Reply {
    const problem = envelopeProblem(meta);
    if (problem) return errorResponse(id, "invalidParams", `Invalid params: ${problem}`);
    switch (method) {
      case "server/discover":
        return resultResponse(id, this.server.discover());
      case "tools/list":
        return this.listTools(id, params, "modern");
      case "tools/call":
        return this.callTool(id, params, meta, version, true, sink);
      default:
        return errorResponse(id, "methodNotFound", `Method not found: ${method}`);
    }
  }

  /** 2025 era, after `initialize`. */
  private legacy(id: RequestId, method: string, params: Record<string, unknown> | undefined, meta: Record<string, unknown> | undefined, sink: Sink): Reply {
    const session = this.session as LegacySession;
    switch (method) {
      case "ping":
        return resultResponse(id, "{}");
      case "tools/list":
        return this.listTools(id, params, "legacy");
      case "tools/call":
        return this.callTool(id, params, meta, session.protocolVersion, false, sink);
      case "logging/setLevel": {
        const rank = logLevelRank(params?.level);
        if (rank === undefined) return errorResponse(id, "invalidParams", `Invalid params: level must be one of ${Object.keys(LOG_LEVEL_RANK).join(", ")}`);
        this.logThreshold = rank;
        return resultResponse(id, "{}");
      }
      default:
        return errorResponse(id, "methodNotFound", `Method not found: ${method}`);
    }
  }

  /** Answers the client's version when we speak it, else the latest 2025 version. */
  private initialize(id: RequestId, params: Record<string, unknown> | undefined): Reply {
    if (this.session) return errorResponse(id, "invalidRequest", "Invalid Request: initialize was already received on this connection");
    const requested = params?.protocolVersion;
    if (typeof requested !== "string") return errorResponse(id, "invalidParams", 'Invalid params: initialize needs a string "protocolVersion"');
    const version = LEGACY_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_LEGACY_PROTOCOL_VERSION;
    const clientInfo = params?.clientInfo;
    const capabilities = params?.capabilities;
    this.session = {
      protocolVersion: version,
      clientInfo: isImplementation(clientInfo) ? clientInfo : undefined,
      clientCapabilities: isObject(capabilities) ? capabilities : {},
      initialized: false,
    };
    return resultResponse(id, this.server.initializeResult(version));
  }

  private listTools(id: RequestId, params: Record<string, unknown> | undefined, era: Era): Reply {
    const cursor = params?.cursor;
    const result = cursor === undefined || typeof cursor === "string" ? this.server.pages.result(cursor, era) : undefined;
    return result === undefined ? errorResponse(id, "invalidParams", "Invalid cursor") : resultResponse(id, result);
  }

  private callTool(
    id: RequestId,
    params: Record<string, unknown> | undefined,
    meta: Record<string, unknown> | undefined,
    version: string,
    modern: boolean,
    sink: Sink,
  ): Reply {
    const name = params?.name;
    if (typeof name !== "string") return errorResponse(id, "invalidParams", 'Invalid params: tools/call needs a string "name"');
    const slot = this.server.slots.get(name);
    if (!slot) return errorResponse(id, "invalidParams", `Unknown tool: ${name}`);
    const args = params?.arguments ?? {};
    if (!isObject(args)) return errorResponse(id, "invalidParams", 'Invalid params: "arguments" must be an object');
    if (this.inFlight.has(id)) return errorResponse(id, "invalidRequest", `Invalid Request: id ${JSON.stringify(id)} is already in use by a request in progress`);
    const call = new ToolCall(this, slot, id, args, meta, version, modern, sink, modern ? params : undefined);
    this.track(id, call);
    return call.run();
  }

  /**
   * Registers a call in progress. Every 1,024 registrations the map is replaced by a copy of its live
   * entries: a long-lived map that keeps deleting rehashes its table in V8's old generation, and those dead
   * tables keep finished calls reachable through young-generation GCs until a full GC (under pipelined load,
   * about a third of the CPU per call went to that; see BENCHMARKS.md).
   */
  private track(id: RequestId, call: ToolCall): void {
    if (++this.registrations >= 1024) {
      this.registrations = 0;
      this.inFlight = new Map(this.inFlight);
    }
    this.inFlight.set(id, call);
  }

  private notification(method: string, params: unknown): void {
    if (method === "notifications/cancelled") {
      // Unknown or finished ids are ignored: cancellation races completion by design.
      if (isObject(params) && isRequestId(params.requestId)) this.cancel(params.requestId, params.reason);
    } else if (method === "notifications/initialized") {
      if (this.session) this.session.initialized = true;
    }
    // Other notifications (progress, roots/list_changed, unknown ones) need nothing from a tools-only server.
  }

  /** JSON-RPC batches (2025-03-26 allows them): answered together, notifications contributing nothing. */
  private batch(messages: unknown[], sink: Sink): Reply {
    if (messages.length === 0) return errorResponse(undefined, "invalidRequest", "Invalid Request: empty batch");
    const replies = messages.map((message) =>
      Array.isArray(message) ? errorResponse(undefined, "invalidRequest", "Invalid Request: nested batch") : this.handle(message, sink),
    );
    return Promise.all(replies).then((all) => {
      const responses = all.filter((reply): reply is string => reply !== undefined);
      return responses.length > 0 ? `[${responses.join(",")}]` : undefined;
    });
  }
}

/** The 2026-era `_meta` envelope: what is wrong with it, if anything (the version was checked already). */
function envelopeProblem(meta: Record<string, unknown>): string | undefined {
  const capabilities = meta[META_CLIENT_CAPABILITIES];
  if (capabilities === undefined) return `missing _meta["${META_CLIENT_CAPABILITIES}"]`;
  if (!isObject(capabilities)) return `_meta["${META_CLIENT_CAPABILITIES}"] must be an object`;
  const clientInfo = meta[META_CLIENT_INFO];
  if (clientInfo !== undefined && !isImplementation(clientInfo)) {
    return `_meta["${META_CLIENT_INFO}"] must be an object with string "name" and "version"`;
  }
  const level = meta[META_LOG_LEVEL];
  if (level !== undefined && logLevelRank(level) === undefined) {
    return `_meta["${META_LOG_LEVEL}"] must be one of ${Object.keys(LOG_LEVEL_RANK).join(", ")}`;
  }
  return undefined;
}

function isImplementation(value: unknown): value is { name: string; version: string } {
  return isObject(value) && typeof value.name === "string" && typeof value.version === "string";
}

/** Resolves when all `promises` settled or `ms` passed, whichever comes first. */
function settledWithin(promises: PromiseLike<unknown>[], ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref?.();
    void Promise.allSettled(promises).then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
