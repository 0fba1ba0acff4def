/**
 * The transport-agnostic core. A `Server` holds what is the same for every client (the registry, its
 * serialized answers, the loaded tools); a `Connection` holds what one client channel negotiated (a
 * 2025-era session) and its requests in flight. A transport parses a message, hands it to
 * `Connection.handle` with a `Sink` for the notifications of that request, and sends back the
 * serialized response it gets.
 *
 *   message ─▶ shape check ─▶ era: 2026 `_meta` envelope │ 2025 session │ pre-`initialize`
 *           ─▶ method ─▶ serialized response (or none: notifications, cancelled requests)
 *
 * Handler-backed methods (`tools/call`, `resources/read`, `prompts/get`, `completion/complete`) run as an
 * `Invocation` (invocation.ts); lists are cached pages (list.ts); change notifications fan out through
 * `Subscriptions` (subscriptions.ts) to 2025-era sessions and 2026-era listen streams.
 */
import { ToolCall } from "./call.js";
import { errorResponse, reportingErrors, resultResponse, type ErrorKind } from "./errors.js";
import type { AuthInfo, ListKind, ToolHandler } from "./handler.js";
import type { Cancellable, Invocation } from "./invocation.js";
import {
  clip,
  describeValue,
  isObject,
  isRequestId,
  LATEST_LEGACY_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  LOG_LEVEL_RANK,
  logLevelRank,
  MAX_URI_LENGTH,
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
import { Pages } from "./list.js";
import { Outgoing, RequestStateCodec } from "./input.js";
import { idJson } from "./json.js";
import { Lazy } from "./lazy.js";
import type { Primitives, RequestFrame } from "./primitives.js";
import { META_SUBSCRIPTION_ID, Subscriptions, type Listener, type SessionTarget, type SubscriptionStats } from "./subscriptions.js";
import { isTaskMethod, resolveTaskOptions, Tasks, type TaskOptions } from "./tasks/tasks.js";

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
  /** Told the kind of error the request is answered with, if it is (HTTP takes the status from the error table). */
  failed?(kind: ErrorKind): void;
}

/** A response to send, none (notifications, cancelled requests), or either later. */
export type Reply = string | undefined | Promise<string | undefined>;

export interface ErrorContext {
  /** What failed: a tool's handler, a resource's (or template's), a prompt's, or a completion handler. */
  readonly kind: "tool" | "resource" | "prompt" | "completion";
  /** The name of the tool (or resource, template, prompt; `<name>.<argument>` for a completion). */
  readonly tool: string;
  readonly requestId: RequestId;
}

export interface ServerOptions {
  /**
   * Entries per page of `tools/list`, `resources/list`, `resources/templates/list` and `prompts/list`.
   * Default: every entry in one page, as the official SDKs do (some clients read only the first page).
   */
  pageSize?: number;
  /**
   * 2026 era: `ttlMs` on `server/discover`, the list results and reads of inline resources (default 300 000).
   * Resources read by a handler default to 0 (the handler may return its own `ttlMs`).
   */
  ttlMs?: number;
  /** 2026 era: `cacheScope` of those results (default `"public"`: the registry is the same for every caller). */
  cacheScope?: "public" | "private";
  /** The most resource URIs one 2025-era session, or one 2026-era listen stream, may subscribe to (default 1000). */
  maxSubscriptions?: number;
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
  /** Tools with `execution.taskSupport`: where tasks are kept, their time to live, poll interval, clock. */
  tasks?: TaskOptions;
}

export type ResolvedServerOptions = Readonly<Required<Omit<ServerOptions, "tasks">> & { tasks: ReturnType<typeof resolveTaskOptions> }>;

/** Fills in defaults and checks ranges; the only place options are resolved. */
export function resolveServerOptions(options: ServerOptions = {}): ResolvedServerOptions {
  const resolved: Required<Omit<ServerOptions, "tasks">> & { tasks: ReturnType<typeof resolveTaskOptions> } = {
    pageSize: options.pageSize ?? Number.POSITIVE_INFINITY,
    ttlMs: options.ttlMs ?? 300_000,
    cacheScope: options.cacheScope ?? "public",
    maxSubscriptions: options.maxSubscriptions ?? 1000,
    onError: options.onError ?? ((error, { kind, tool }) => console.error(`[mcpgen] ${kind} "${tool}" failed:`, error)),
    requestStateSecret: options.requestStateSecret ?? crypto.getRandomValues(new Uint8Array(32)),
    requestStateTtlMs: options.requestStateTtlMs ?? 600_000,
    tasks: resolveTaskOptions(options.tasks),
  };
  if ((!Number.isSafeInteger(resolved.pageSize) && resolved.pageSize !== Number.POSITIVE_INFINITY) || resolved.pageSize < 1) {
    throw new RangeError(`pageSize must be a positive integer (or Infinity), got ${resolved.pageSize}`);
  }
  if (!Number.isSafeInteger(resolved.ttlMs) || resolved.ttlMs < 0) {
    throw new RangeError(`ttlMs must be a non-negative integer, got ${resolved.ttlMs}`);
  }
  if (!Number.isSafeInteger(resolved.maxSubscriptions) || resolved.maxSubscriptions < 0) {
    throw new RangeError(`maxSubscriptions must be a non-negative integer, got ${resolved.maxSubscriptions}`);
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

/** How a connection is used. */
export interface ConnectOptions {
  /**
   * The connection carries one exchange and is dropped (stateless HTTP, 2026-era HTTP): it is never told
   * about changes outside a request, so it is not counted as a session and cannot `resources/subscribe`.
   */
  ephemeral?: boolean;
}

/** The lists a server serves, by method. */
interface ListPages {
  readonly "tools/list": Pages;
  readonly "resources/list"?: Pages;
  readonly "resources/templates/list"?: Pages;
  readonly "prompts/list"?: Pages;
}

export class Server {
  readonly options: ResolvedServerOptions;
  /** @internal */
  readonly slots = new Map<string, ToolSlot>();
  /** @internal Resources, prompts and completion: loaded on the first request that needs them. */
  readonly primitives: Lazy<Primitives>;
  /** @internal */
  readonly pages: ListPages;
  /** @internal 2025 era: server→client requests awaiting the client's response. */
  readonly outgoing = new Outgoing();
  /** @internal 2026 era: seals and opens `requestState`. */
  readonly requestState: RequestStateCodec;
  /** @internal Who hears about changes (2025-era sessions and subscriptions, 2026-era listen streams). */
  readonly subscriptions: Subscriptions;
  /** @internal Tool calls that run as tasks, and the `tasks/*` methods. */
  readonly tasks: Tasks;
  /** @internal 2026 era: `"ttlMs":…,"cacheScope":…` of results that are the same for every caller. */
  readonly cacheHints: string;
  /** `"_meta":{"io.modelcontextprotocol/serverInfo":{…}}`, spliced into every 2026-era result. */
  private readonly serverInfoMeta: string;
  private readonly discoverResult: string;
  private readonly initializeResults = new Map<string, string>();
  /** @internal What the registry has: tools, resources (or templates), prompts, completions. */
  readonly kinds: { readonly tools: boolean; readonly resources: boolean; readonly prompts: boolean; readonly completions: boolean };

  constructor(
    readonly registry: Registry,
    options?: ServerOptions,
  ) {
    if (registry.format !== 2) throw new Error(`Unsupported registry format ${String(registry.format)}; rebuild with a matching mcpgen`);
    this.options = resolveServerOptions(options);
    this.requestState = new RequestStateCodec(this.options.requestStateSecret, this.options.requestStateTtlMs);
    for (const entry of registry.tools) {
      this.slots.set(entry.name, { entry, structured: entry.wire.outputSchema !== undefined, loaded: undefined, loading: undefined });
    }
    this.primitives = new Lazy(() => import("./primitives.js").then(({ Primitives }) => new Primitives(registry)));
    const templates = registry.resourceTemplates ?? [];
    const hasCompletions = (entries: readonly { completions: object }[]): boolean => entries.some((entry) => Object.keys(entry.completions).length > 0);
    this.kinds = {
      tools: registry.tools.length > 0,
      resources: (registry.resources?.length ?? 0) > 0 || templates.length > 0,
      prompts: (registry.prompts?.length ?? 0) > 0,
      completions: hasCompletions(registry.prompts ?? []) || hasCompletions(templates),
    };
    this.subscriptions = new Subscriptions(this.kinds, this.options.maxSubscriptions);
    this.tasks = new Tasks(this, this.options.tasks);

    this.serverInfoMeta = `"_meta":{${JSON.stringify(META_SERVER_INFO)}:${JSON.stringify(registry.server)}}`;
    this.cacheHints = `"ttlMs":${this.options.ttlMs},"cacheScope":${JSON.stringify(this.options.cacheScope)}`;
    const tail = `${this.cacheHints},${this.serverInfoMeta}`;
    const { pageSize } = this.options;
    const listed = registry.tools.filter((tool) => !tool.hidden);
    this.pages = {
      "tools/list": new Pages({ key: "tools", cursorPrefix: "", entries: listed }, pageSize, tail),
      ...(this.kinds.resources && {
        "resources/list": new Pages({ key: "resources", cursorPrefix: "resource:", entries: registry.resources ?? [] }, pageSize, tail),
        "resources/templates/list": new Pages({ key: "resourceTemplates", cursorPrefix: "template:", entries: templates }, pageSize, tail),
      }),
      ...(this.kinds.prompts && {
        "prompts/list": new Pages({ key: "prompts", cursorPrefix: "prompt:", entries: registry.prompts ?? [] }, pageSize, tail),
      }),
    };
    const discover = {
      resultType: "complete",
      supportedVersions: SUPPORTED_PROTOCOL_VERSIONS,
      capabilities: this.capabilities("modern"),
      ...(registry.instructions !== undefined && { instructions: registry.instructions }),
    };
    this.discoverResult = `${JSON.stringify(discover).slice(0, -1)},${tail}}`;
  }

  /** Opens a connection; a 2025-era session lives on it (stdio: the process; HTTP: `Mcp-Session-Id`). */
  connect(sink: Sink, options: ConnectOptions = {}): Connection {
    return new Connection(this, sink, options.ephemeral === true);
  }

  /**
   * Capabilities assembled from the registry. Both eras announce list changes and resource subscriptions:
   * 2025-era sessions hear them unasked (`resources/subscribe` for updates), 2026-era clients on
   * `subscriptions/listen`.
   */
  capabilities(era: Era): Record<string, unknown> {
    const capabilities: Record<string, unknown> = {};
    if (this.kinds.tools) capabilities.tools = { listChanged: true };
    if (this.kinds.resources) capabilities.resources = { subscribe: true, listChanged: true };
    if (this.kinds.prompts) capabilities.prompts = { listChanged: true };
    if (this.kinds.completions) capabilities.completions = {};
    capabilities.logging = {}; // handlers may call ctx.log()
    Object.assign(capabilities, this.tasks.capabilities(era === "modern"));
    return capabilities;
  }

  /**
   * Tells the clients subscribed to `uri` that it changed (`notifications/resources/updated`): 2025-era
   * sessions that sent `resources/subscribe` for it and 2026-era listen streams listing it, on every
   * transport this server serves.
   */
  resourceUpdated(uri: string): void {
    this.subscriptions.resourceUpdated(uri);
  }

  /**
   * Tells clients that the tools, resources or prompts changed (`notifications/<kind>/list_changed`): every
   * 2025-era session and the 2026-era listen streams that asked for it.
   */
  listChanged(kind: ListKind): void {
    this.subscriptions.listChanged(kind);
  }

  /** Sizes of the subscription tables (2025-era sessions and subscriptions, 2026-era listen streams). */
  get subscriptionStats(): SubscriptionStats {
    return this.subscriptions.stats;
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

  /** @internal Serializes a 2026-era result object: `resultType` first, `serverInfo` merged into its `_meta`. */
  modernResult<R extends { readonly _meta?: Record<string, unknown> | undefined }>(result: R): string {
    if (result._meta === undefined) return this.modernResultOf(JSON.stringify(result).slice(1, -1));
    return JSON.stringify({
      resultType: "complete",
      ...result,
      _meta: { ...result._meta, [META_SERVER_INFO]: this.registry.server },
    });
  }

  /** @internal The same, as a response to `id`. */
  modernResponse<R extends { readonly _meta?: Record<string, unknown> | undefined }>(id: RequestId, result: R): string {
    return resultResponse(id, this.modernResult(result));
  }

  /** @internal The same for a result without `_meta` whose members are serialized already (`"content":[…],…`). */
  modernResultOf(members: string): string {
    return `{"resultType":"complete",${members},${this.serverInfoMeta}}`;
  }

  /** @internal Serializes a 2026-era `input_required` result (multi round-trip requests). */
  inputRequiredResult(inputRequests: Record<string, unknown>, requestState: string): string {
    return `{"resultType":"input_required","inputRequests":${JSON.stringify(inputRequests)},"requestState":${JSON.stringify(requestState)},${this.serverInfoMeta}}`;
  }

  /** @internal The response that ends a `subscriptions/listen` stream gracefully (the server tears it down). */
  listenEnded(id: RequestId): string {
    return resultResponse(id, `{"resultType":"complete","_meta":{"${META_SUBSCRIPTION_ID}":${idJson(id)},"${META_SERVER_INFO}":${JSON.stringify(this.registry.server)}}}`);
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

export class Connection implements SessionTarget {
  /** Set by `initialize`; 2026-era requests never need it. */
  session: LegacySession | undefined;
  /** 2025 era: the minimum level of `notifications/message`, set by `logging/setLevel` (default info). */
  logThreshold: number = LOG_LEVEL_RANK.info;
  /** @internal Handler-backed requests in progress, by id, for `notifications/cancelled`. */
  inFlight = new Map<RequestId, Cancellable>();
  /** 2026 era: open `subscriptions/listen` requests, by id (they do not keep the connection busy). */
  private readonly listens = new Map<RequestId, { listener: Listener; end: (response: string | undefined) => void }>();
  /** Registrations since `inFlight` was last replaced (see `track`). */
  private registrations = 0;
  private closed = false;

  constructor(
    readonly server: Server,
    private readonly sink: Sink,
    /** One exchange only (stateless HTTP): no session-wide notifications, no subscriptions. */
    readonly ephemeral = false,
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
    // The message boundary: whatever a message does to the runtime costs that message one error response,
    // never the connection (a stdio process, every session of an HTTP server). Every error response built on
    // the way is reported to the sink by its kind (HTTP takes its status from that).
    const report = sink.failed && ((kind: ErrorKind) => sink.failed?.(kind));
    const fail = (error: unknown) => reportingErrors(report, () => crashed(error, message));
    try {
      const reply = reportingErrors(report, () => this.dispatch(message, sink));
      return typeof reply === "object" ? reply.catch(fail) : reply;
    } catch (error) {
      return fail(error);
    }
  }

  private dispatch(message: unknown, sink: Sink): Reply {
    if (this.closed) return undefined;
    if (Array.isArray(message)) return this.batch(message, sink);
    if (!isObject(message)) return errorResponse(undefined, "invalidRequest", "Invalid Request: expected a JSON-RPC message object");
    const { id, method, params } = message;
    const hasId = id !== undefined;
    if (typeof method !== "string") {
      // A response from the client, to a server→client request (ctx.elicit / ctx.sample, 2025 era); unknown ids are dropped.
      if (!("method" in message) && hasId && ("result" in message || "error" in message)) {
        this.server.outgoing.deliver(message, { connection: this, ephemeral: this.ephemeral, subject: sink.auth?.subject });
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
    if (call) {
      call.cancel(reason);
      return true;
    }
    const listen = this.listens.get(requestId);
    if (!listen) return false;
    this.listens.delete(requestId);
    listen.listener.close();
    listen.end(undefined); // a cancelled request gets no response
    return true;
  }

  /** @internal A notification outside any request (list changes, resource updates) for this 2025-era session. */
  notify(line: string): void {
    if (this.closed) return;
    try {
      const sent = this.sink.send(line);
      if (sent) sent.catch(() => {});
    } catch {
      // best effort: the transport reports its own failures
    }
  }

  /** @internal Forgets a finished or cancelled call (its id may be reused at once). */
  release(call: Cancellable): void {
    if (this.inFlight.get(call.requestId) !== call) return;
    this.inFlight.delete(call.requestId);
  }

  /**
   * Cancels every request in flight and waits up to `graceMs` for their handlers to wind down. Messages
   * arriving afterwards are ignored.
   */
  async close(graceMs = 0): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.server.subscriptions.removeSession(this);
    for (const [id, { listener, end }] of this.listens) {
      listener.close();
      end(this.server.listenEnded(id)); // the server ends the subscription: a graceful result
    }
    this.listens.clear();
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
        const requested = typeof version === "string" ? clip(version) : describeValue(version);
        return errorResponse(id, "unsupportedProtocolVersion", `Unsupported protocol version: ${requested}`, {
          requested,
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
    // The hot method first: a method read from JSON is compared with each case in turn.
    switch (method) {
      case "tools/call":
        return this.callTool(id, params, meta, version, true, sink);
      case "server/discover":
        return resultResponse(id, this.server.discover());
      case "tools/list":
      case "resources/list":
      case "resources/templates/list":
      case "prompts/list":
        return this.list(id, method, params, "modern");
      case "resources/read":
      case "prompts/get":
      case "completion/complete":
        return this.primitive(method, { conn: this, id, meta, version, modern: true, sink, params });
      case "subscriptions/listen":
        return this.listen(id, params, sink);
      default:
        if (isTaskMethod(method)) return this.server.tasks.request(this, id, method, params, meta, true, sink);
        return errorResponse(id, "methodNotFound", `Method not found: ${clip(method)}`);
    }
  }

  /** 2025 era, after `initialize`. */
  private legacy(id: RequestId, method: string, params: Record<string, unknown> | undefined, meta: Record<string, unknown> | undefined, sink: Sink): Reply {
    const session = this.session as LegacySession;
    // The hot method first: a method read from JSON is compared with each case in turn.
    switch (method) {
      case "tools/call":
        return this.callTool(id, params, meta, session.protocolVersion, false, sink);
      case "ping":
        return resultResponse(id, "{}");
      case "tools/list":
      case "resources/list":
      case "resources/templates/list":
      case "prompts/list":
        return this.list(id, method, params, "legacy");
      case "resources/read":
      case "prompts/get":
      case "completion/complete":
        return this.primitive(method, { conn: this, id, meta, version: session.protocolVersion, modern: false, sink, params });
      case "resources/subscribe":
      case "resources/unsubscribe":
        return this.subscribe(id, method, params);
      case "logging/setLevel": {
        const rank = logLevelRank(params?.level);
        if (rank === undefined) return errorResponse(id, "invalidParams", `Invalid params: level must be one of ${Object.keys(LOG_LEVEL_RANK).join(", ")}`);
        this.logThreshold = rank;
        return resultResponse(id, "{}");
      }
      default:
        if (isTaskMethod(method)) return this.server.tasks.request(this, id, method, params, meta, false, sink);
        return errorResponse(id, "methodNotFound", `Method not found: ${clip(method)}`);
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
    if (!this.ephemeral) this.server.subscriptions.addSession(this);
    return resultResponse(id, this.server.initializeResult(version));
  }

  private list(id: RequestId, method: keyof ListPages, params: Record<string, unknown> | undefined, era: Era): Reply {
    const pages = this.server.pages[method];
    if (!pages) return errorResponse(id, "methodNotFound", `Method not found: ${method}`);
    const cursor = params?.cursor;
    const result = cursor === undefined || typeof cursor === "string" ? pages.result(cursor, era) : undefined;
    return result === undefined ? errorResponse(id, "invalidParams", "Invalid cursor") : resultResponse(id, result);
  }

  /** `resources/read`, `prompts/get` and `completion/complete`: checked here, run by the primitives runtime. */
  private primitive(method: "resources/read" | "prompts/get" | "completion/complete", frame: RequestFrame): Reply {
    const { id, params } = frame;
    const available = method === "completion/complete" ? this.server.kinds.completions : this.server.pages[method === "resources/read" ? "resources/list" : "prompts/list"];
    if (!available) return errorResponse(id, "methodNotFound", `Method not found: ${method}`);
    if (method === "completion/complete") return this.invoke(frame, (primitives) => primitives.complete(frame));
    if (method === "resources/read") {
      const uri = params?.uri;
      if (typeof uri !== "string") return errorResponse(id, "invalidParams", 'Invalid params: resources/read needs a string "uri"');
      if (uri.length > MAX_URI_LENGTH) return uriTooLong(id);
      return this.invoke(frame, (primitives) => primitives.read(frame, uri));
    }
    const name = params?.name;
    if (typeof name !== "string") return errorResponse(id, "invalidParams", 'Invalid params: prompts/get needs a string "name"');
    const args = params?.arguments ?? {};
    if (!isObject(args)) return errorResponse(id, "invalidParams", 'Invalid params: "arguments" must be an object');
    return this.invoke(frame, (primitives) => primitives.get(frame, name, args));
  }

  /**
   * Starts a resources / prompts / completion request once that part of the runtime is loaded (at once when
   * it is); `start` gives the invocation, or what is wrong with the request (-32602).
   */
  private invoke(frame: RequestFrame, start: (primitives: Primitives) => Invocation | string): Reply {
    const run = (primitives: Primitives): Reply => {
      if (this.closed) return undefined;
      if (this.inFlight.has(frame.id)) return this.idInUse(frame.id);
      const invocation = start(primitives);
      if (typeof invocation === "string") return errorResponse(frame.id, "invalidParams", invocation);
      this.track(frame.id, invocation);
      return invocation.run();
    };
    const loaded = this.server.primitives.value;
    if (loaded) return run(loaded);
    const report = frame.sink.failed && ((kind: ErrorKind) => frame.sink.failed?.(kind));
    return this.server.primitives.get().then(
      (primitives) => reportingErrors(report, () => run(primitives)),
      (error: unknown) => {
        console.error("[mcpgen] could not load the resources and prompts runtime:", error);
        return reportingErrors(report, () => errorResponse(frame.id, "internalError"));
      },
    );
  }

  /** 2025 era: `resources/subscribe` / `resources/unsubscribe` for this session. */
  private subscribe(id: RequestId, method: "resources/subscribe" | "resources/unsubscribe", params: Record<string, unknown> | undefined): Reply {
    if (!this.server.pages["resources/list"]) return errorResponse(id, "methodNotFound", `Method not found: ${method}`);
    const uri = params?.uri;
    if (typeof uri !== "string") return errorResponse(id, "invalidParams", `Invalid params: ${method} needs a string "uri"`);
    if (uri.length > MAX_URI_LENGTH) return uriTooLong(id);
    if (method === "resources/unsubscribe") {
      this.server.subscriptions.unsubscribe(this, uri);
      return resultResponse(id, "{}");
    }
    const problem = this.server.subscriptions.subscribe(this, uri);
    return problem === undefined ? resultResponse(id, "{}") : errorResponse(id, "invalidRequest", `Invalid Request: ${problem}`);
  }

  /**
   * 2026 era: `subscriptions/listen`, held open until the client cancels it (`notifications/cancelled`, or the
   * transport closing) — then it gets no response — or the connection closes — then it ends gracefully.
   */
  private listen(id: RequestId, params: Record<string, unknown> | undefined, sink: Sink): Reply {
    if (this.inFlight.has(id) || this.listens.has(id)) return this.idInUse(id);
    let end: (response: string | undefined) => void = () => {};
    const ended = new Promise<string | undefined>((resolve) => (end = resolve));
    const opened = this.server.subscriptions.open(id, params?.notifications, (line) => sink.send(line));
    if (typeof opened === "string") return errorResponse(id, "invalidParams", `Invalid params: ${opened}`);
    this.listens.set(id, { listener: opened, end });
    return ended;
  }

  private idInUse(id: RequestId): string {
    return errorResponse(id, "invalidRequest", `Invalid Request: id ${typeof id === "string" ? JSON.stringify(clip(id)) : String(id)} is already in use by a request in progress`);
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
    if (!slot) return errorResponse(id, "invalidParams", `Unknown tool: ${clip(name)}`);
    const args = params?.arguments ?? {};
    if (!isObject(args)) return errorResponse(id, "invalidParams", 'Invalid params: "arguments" must be an object');
    if (this.inFlight.has(id)) return this.idInUse(id);
    // A tool with task support: the task runner decides whether this call becomes a task (tasks/).
    if (slot.entry.wire.execution?.taskSupport === "optional" || slot.entry.wire.execution?.taskSupport === "required") {
      return this.server.tasks.call(this, slot, id, args, meta, version, modern, sink, params, (call) => this.track(id, call));
    }
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
  private track(id: RequestId, call: Cancellable): void {
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
    // Other notifications (progress, roots/list_changed, unknown ones) need nothing from this server.
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

/** A runtime failure while handling `message`: logged here, answered with -32603 (requests only). */
function crashed(error: unknown, message: unknown): string | undefined {
  console.error("[mcpgen] internal error:", error);
  if (!isObject(message)) return errorResponse(undefined, "internalError");
  if (message.id === undefined) return undefined; // a notification (or a client response) is never answered
  return errorResponse(isRequestId(message.id) ? message.id : undefined, "internalError");
}

function uriTooLong(id: RequestId): string {
  return errorResponse(id, "invalidParams", `Invalid params: "uri" is longer than ${MAX_URI_LENGTH} characters`);
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
