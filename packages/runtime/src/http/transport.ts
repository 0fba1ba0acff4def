/**
 * Streamable HTTP, independent of any HTTP library: an adapter turns its request into an `HttpInput` and
 * writes the `HttpOutput` it gets back (a body, or an SSE stream). Every request runs the same ladder:
 *
 *   endpoint path ─▶ Host / Origin ─▶ CORS preflight ─▶ authenticate ─▶ POST │ GET │ DELETE
 *   POST: Content-Type ─▶ Accept ─▶ body (size limit) ─▶ JSON ─▶ era
 *         2026: header/body agreement (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*) ─▶ core
 *         2025: initialize │ session (Mcp-Session-Id) or stateless ─▶ core
 *   response: JSON, or SSE as soon as the request sends something before its result
 */
import { errorResponse, ERROR_TABLE, type ErrorKind } from "../errors.js";
import type { AuthInfo } from "../handler.js";
import { parseMessage } from "../json.js";
import {
  clip,
  describeValue,
  isObject,
  LEGACY_PROTOCOL_VERSIONS,
  META_PROTOCOL_VERSION,
  MODERN_PROTOCOL_VERSIONS,
  type RequestId,
} from "../protocol.js";
import { settledWithin, type Connection, type Reply, type Server, type Sink } from "../server.js";
import { streamOfEventId, type EventStore, type StoredEvent } from "./event-store.js";
import { decodeHeaderValue, nameSource, paramHeaderProblem, paramHeaders, type ParamHeader } from "./headers.js";
import { AuthError, type Authenticate, type AuthRequest, type ResolvedHttpOptions } from "./options.js";
import { accepts, challenge, corsHeaders, hostAllowed, mediaType, originAllowed, preflightHeaders } from "./security.js";
import { SseStream } from "./sse.js";

/** A request as the transport sees it; adapters build one from theirs. */
export interface HttpInput extends AuthRequest {
  /** Upper-case HTTP method. */
  readonly method: string;
  /** The URL path, without query. */
  readonly path: string;
  /** Reads the body as UTF-8; rejects with a `BodyError` past `limit` bytes or when the body breaks off. */
  text(limit: number): Promise<string>;
  /** Runs `listener` if the client goes away before the response is complete. */
  onDisconnect(listener: () => void): void;
}

export class BodyError extends Error {
  override name = "BodyError";
  constructor(
    readonly kind: "payloadTooLarge" | "badRequest",
    message: string,
  ) {
    super(message);
  }
}

/** The answer: a complete body, or an SSE stream the adapter attaches to. */
export type HttpOutput =
  | { readonly status: number; readonly headers: Record<string, string>; readonly body: string | undefined; readonly stream?: undefined }
  | { readonly status: number; readonly headers: Record<string, string>; readonly body?: undefined; readonly stream: SseStream };

const JSON_HEADERS = { "content-type": "application/json" } as const;
const NO_SINK: Sink = { send: () => undefined };
/** Connections that carry one exchange (stateless and 2026-era requests): no session-wide notifications. */
const EPHEMERAL = { ephemeral: true } as const;

/** A 2025-era session: one core connection plus the streams that carry its messages. */
interface HttpSession {
  readonly id: string;
  readonly connection: Connection;
  /** The principal that created the session (requests from another principal do not find it). */
  readonly subject: string | undefined;
  lastActive: number;
  /** The standalone GET stream, if open. */
  standalone: SseStream | undefined;
  /** Sequence of the standalone stream's events (stream id "0"). */
  standaloneSeq: number;
  /**
   * A standalone stream was opened once: from then on its events are stored even while no stream is open,
   * so that a client reconnecting with `Last-Event-ID` gets what it missed in between.
   */
  standaloneResumable: boolean;
  /** POST streams whose requests are still running, by stream id (for `Last-Event-ID` reattachment). */
  readonly exchanges: Map<string, Exchange>;
  /** Every request of the session still running (a session whose clients all left can expire). */
  readonly running: Set<Exchange>;
  nextStream: number;
  closed: boolean;
}

/** What the transport holds, for tests and monitoring. */
export interface HttpStats {
  sessions: number;
  /** Open SSE streams (GET streams and `subscriptions/listen` streams) and running POST exchanges. */
  streams: number;
  exchanges: number;
}

export class HttpTransport {
  private readonly sessions = new Map<string, HttpSession>();
  /** 2026-era `subscriptions/listen` requests in progress (each holds an SSE stream). */
  private readonly listens = new Set<Exchange>();
  private readonly running = new Set<Exchange>();
  private readonly paramHeaderCache = new Map<string, readonly ParamHeader[]>();
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private closed = false;

  constructor(
    readonly server: Server,
    readonly options: ResolvedHttpOptions,
  ) {
    if (options.sessions) {
      this.sweeper = setInterval(() => this.sweep(), Math.max(10, Math.min(60_000, Math.floor(options.sessionIdleMs / 2))));
      (this.sweeper as { unref?: () => void }).unref?.();
    }
  }

  get stats(): HttpStats {
    let streams = 0;
    for (const exchange of this.listens) if (exchange.attended) streams++;
    for (const session of this.sessions.values()) if (session.standalone) streams++;
    return { sessions: this.sessions.size, streams, exchanges: this.running.size };
  }

  /**
   * Answers one request; never rejects (a failure of the runtime itself becomes a 500). The answer is
   * immediate when nothing needs waiting for (an adapter may write it at once), else a promise.
   */
  handle(input: HttpInput): HttpOutput | Promise<HttpOutput> {
    try {
      const output = this.route(input);
      return output instanceof Promise ? output.catch((error: unknown) => this.crash(error)) : output;
    } catch (error) {
      return this.crash(error);
    }
  }

  private crash(error: unknown): HttpOutput {
    this.report(error);
    return reject("internalError", "Internal error");
  }

  /** Closes every session and stream; requests in flight are cancelled. Later requests get 503. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.sweeper) clearInterval(this.sweeper);
    // Closing a listen request's connection ends it with a result (the server ends the subscription).
    await settledWithin([...this.listens].map((exchange) => exchange.closeConnection()), 1000);
    for (const exchange of [...this.listens]) exchange.abandon();
    await Promise.all([...this.sessions.values()].map((session) => this.closeSession(session)));
    for (const exchange of this.running) exchange.abandon();
    this.running.clear();
  }

  private route(input: HttpInput): HttpOutput | Promise<HttpOutput> {
    const options = this.options;
    if (input.path !== options.path) return reject("notFound", `Not Found: the MCP endpoint is ${options.path}`);
    if (!this.hostAllowed(input.header("host"))) return reject("forbidden", "Forbidden: Host header not allowed");
    const origin = input.header("origin");
    if (origin !== undefined && !originAllowed(options, origin)) return reject("forbidden", "Forbidden: Origin not allowed");
    const cors = corsHeaders(options, origin);
    const output = this.routeMethod(input, cors !== undefined);
    if (!cors) return output;
    return output instanceof Promise ? output.then((out) => withHeaders(out, cors)) : withHeaders(output, cors);
  }

  /** Host checks, remembered per distinct header value (a bounded cache: clients send few distinct values). */
  private readonly hostVerdicts = new Map<string | undefined, boolean>();
  private hostAllowed(host: string | undefined): boolean {
    let verdict = this.hostVerdicts.get(host);
    if (verdict === undefined) {
      verdict = hostAllowed(this.options, host);
      if (this.hostVerdicts.size >= 64) this.hostVerdicts.clear();
      this.hostVerdicts.set(host, verdict);
    }
    return verdict;
  }

  private routeMethod(input: HttpInput, corsAllowed: boolean): HttpOutput | Promise<HttpOutput> {
    if (this.closed) return reject("serviceUnavailable", "Service Unavailable: the server is shutting down");
    if (input.method === "OPTIONS") {
      if (!corsAllowed) return withHeaders(reject("methodNotAllowed", "Method Not Allowed"), { allow: this.allow() });
      return { status: 204, headers: preflightHeaders(this.options, input.header("access-control-request-headers")), body: undefined };
    }
    if (this.options.authenticate) return this.authenticated(input, this.options.authenticate);
    return this.dispatch(input, undefined);
  }

  private async authenticated(input: HttpInput, authenticate: Authenticate): Promise<HttpOutput> {
    let auth: AuthInfo | undefined;
    let failure: AuthError | undefined;
    try {
      auth = await authenticate(input);
    } catch (error) {
      failure = error instanceof AuthError ? error : new AuthError("Authentication failed");
      if (!(error instanceof AuthError)) this.report(error);
    }
    if (failure?.error === "insufficient_scope") {
      return withHeaders(reject("forbidden", `Forbidden: ${failure.message}`), { "www-authenticate": challenge(this.options, failure) });
    }
    if (!auth) {
      return withHeaders(reject("unauthorized", `Unauthorized: ${failure?.message ?? "authentication required"}`), {
        "www-authenticate": challenge(this.options, failure),
      });
    }
    return this.dispatch(input, auth);
  }

  private dispatch(input: HttpInput, auth: AuthInfo | undefined): HttpOutput | Promise<HttpOutput> {
    switch (input.method) {
      case "POST":
        return this.post(input, auth);
      case "GET":
        return this.get(input, auth);
      case "DELETE":
        return this.delete(input, auth);
      default:
        return withHeaders(reject("methodNotAllowed", `Method Not Allowed: ${input.method}`), { allow: this.allow() });
    }
  }

  private allow(): string {
    return this.options.sessions ? "GET, POST, DELETE" : "POST";
  }

  // ── POST ──

  private post(input: HttpInput, auth: AuthInfo | undefined): HttpOutput | Promise<HttpOutput> {
    if (mediaType(input.header("content-type")) !== "application/json") {
      return reject("unsupportedMediaType", "Unsupported Media Type: Content-Type must be application/json");
    }
    const accept = this.accepts(input.header("accept"));
    if (!accept.json && !accept.sse) {
      return reject("notAcceptable", "Not Acceptable: the client must accept application/json or text/event-stream");
    }
    return input.text(this.options.maxBodyBytes).then(
      (text) => this.received(input, text, accept, auth),
      (error: unknown) => {
        if (!(error instanceof BodyError)) throw error;
        return reject(error.kind, error.kind === "payloadTooLarge" ? `Payload Too Large: the limit is ${this.options.maxBodyBytes} bytes` : `Bad Request: ${error.message}`);
      },
    );
  }

  /** Accept negotiations, remembered per distinct header value (bounded). */
  private readonly acceptVerdicts = new Map<string | undefined, { json: boolean; sse: boolean }>();
  private accepts(header: string | undefined): { json: boolean; sse: boolean } {
    let verdict = this.acceptVerdicts.get(header);
    if (verdict === undefined) {
      verdict = accepts(header);
      if (this.acceptVerdicts.size >= 64) this.acceptVerdicts.clear();
      this.acceptVerdicts.set(header, verdict);
    }
    return verdict;
  }

  private received(input: HttpInput, text: string, accept: { json: boolean; sse: boolean }, auth: AuthInfo | undefined): HttpOutput | Promise<HttpOutput> {
    let message: unknown;
    try {
      message = parseMessage(text);
    } catch (error) {
      return reject("parseError", `Parse error: ${(error as Error).message}`);
    }
    const headerVersion = input.header("mcp-protocol-version");
    const params = isObject(message) && isObject(message.params) ? message.params : undefined;
    const claim = params && isObject(params._meta) ? params._meta[META_PROTOCOL_VERSION] : undefined;
    const modernHeader = headerVersion !== undefined && MODERN_PROTOCOL_VERSIONS.includes(headerVersion);
    const sessionId = this.options.sessions ? input.header("mcp-session-id") : undefined;
    if (modernHeader || (claim !== undefined && sessionId === undefined)) return this.modern(input, message, claim, headerVersion, accept, auth);
    return this.legacy(input, message, headerVersion, sessionId, this.mode(accept), auth);
  }

  /** The response mode of a request: the configured one, narrowed by what the client accepts. */
  private mode(accept: { json: boolean; sse: boolean }): "auto" | "json" | "sse" {
    if (!accept.sse) return "json";
    if (!accept.json) return "sse";
    return this.options.responseMode;
  }

  /** 2026 era: stateless; the headers must agree with the body. */
  private modern(
    input: HttpInput,
    message: unknown,
    claim: unknown,
    headerVersion: string | undefined,
    accept: { json: boolean; sse: boolean },
    auth: AuthInfo | undefined,
  ): HttpOutput | Promise<HttpOutput> {
    if (!isObject(message)) return reject("invalidRequest", "Invalid Request: the 2026-07-28 protocol takes one JSON-RPC message per POST");
    const id = isRequestIdValue(message.id) ? message.id : undefined;
    if (typeof message.method !== "string") return reject("invalidRequest", "Invalid Request: clients send requests and notifications only", id);
    if (message.id === undefined) {
      return { status: 202, headers: {}, body: undefined }; // no client notification needs anything over HTTP
    }
    if (message.method === "initialize") {
      return reject("methodNotFound", "Method not found: initialize (the 2026-07-28 protocol has no handshake; use server/discover)", id);
    }
    if (headerVersion === undefined) return reject("headerMismatch", "Header mismatch: the MCP-Protocol-Version header is required", id);
    if (claim === undefined) {
      return reject("invalidParams", `Invalid params: missing _meta["${META_PROTOCOL_VERSION}"] (MCP-Protocol-Version is ${headerVersion}); send it on every request`, id);
    }
    if (headerVersion !== claim) {
      return reject("headerMismatch", `Header mismatch: MCP-Protocol-Version header value '${headerVersion}' does not match body value ${typeof claim === "string" ? `'${clip(claim)}'` : describeValue(claim)}`, id);
    }
    const method = message.method;
    const methodHeader = input.header("mcp-method");
    if (methodHeader === undefined) return reject("headerMismatch", "Header mismatch: the Mcp-Method header is required", id);
    if (methodHeader !== method) return reject("headerMismatch", `Header mismatch: Mcp-Method header value '${methodHeader}' does not match body value '${method}'`, id);
    const params = isObject(message.params) ? message.params : undefined;
    const source = nameSource(method, params);
    if (source) {
      const raw = input.header("mcp-name");
      if (raw === undefined) return reject("headerMismatch", "Header mismatch: the Mcp-Name header is required", id);
      const name = decodeHeaderValue(raw);
      if (name === undefined) return reject("headerMismatch", "Header mismatch: the Mcp-Name header value is malformed", id);
      if (name !== source.value) {
        return reject("headerMismatch", `Header mismatch: Mcp-Name header value '${name}' does not match body value ${typeof source.value === "string" ? `'${clip(source.value)}'` : describeValue(source.value)}`, id);
      }
      if (method === "tools/call" && typeof source.value === "string") {
        const problem = paramHeaderProblem(this.paramHeadersOf(source.value), params?.arguments, (name) => input.header(name));
        if (problem) return reject("headerMismatch", `Header mismatch: ${problem}`, id);
      }
    }
    // The core checks and answers every request; `subscriptions/listen` just needs its answer carried as a
    // stream that stays open (its acknowledgment comes first, the result only when it ends).
    const listen = method === "subscriptions/listen";
    const connection = this.server.connect(NO_SINK, EPHEMERAL);
    const exchange = new Exchange(this, listen && accept.sse ? "sse" : this.mode(accept), auth, true, undefined, listen);
    const requestId = id as RequestId;
    input.onDisconnect(() => connection.cancel(requestId, "The client closed the request"));
    const reply = connection.handle(message, exchange);
    if (listen && !accept.sse && typeof reply === "object") {
      connection.cancel(requestId, "The client does not accept a stream");
      return reject("notAcceptable", "Not Acceptable: subscriptions/listen answers with a stream; the client must accept text/event-stream", id);
    }
    return exchange.respond(reply, connection, requestId);
  }

  private paramHeadersOf(tool: string): readonly ParamHeader[] {
    let cached = this.paramHeaderCache.get(tool);
    if (cached === undefined) {
      const slot = this.server.slots.get(tool);
      cached = slot ? paramHeaders(slot.entry.wire) : [];
      if (slot) this.paramHeaderCache.set(tool, cached);
    }
    return cached;
  }

  /** 2025 era: `initialize` opens a session (unless stateless); everything else belongs to one. */
  private legacy(
    input: HttpInput,
    message: unknown,
    headerVersion: string | undefined,
    sessionId: string | undefined,
    mode: "auto" | "json" | "sse",
    auth: AuthInfo | undefined,
  ): HttpOutput | Promise<HttpOutput> {
    const messages = Array.isArray(message) ? message : [message];
    if (messages.length === 0) return reject("invalidRequest", "Invalid Request: empty batch");
    if (messages.some((m) => isObject(m) && m.method === "initialize")) {
      if (messages.length > 1) return reject("invalidRequest", "Invalid Request: initialize must be sent on its own");
      return this.initialize(message as Record<string, unknown>, mode, auth);
    }
    if (headerVersion !== undefined && !LEGACY_PROTOCOL_VERSIONS.includes(headerVersion)) {
      return reject("badRequest", `Bad Request: unsupported MCP-Protocol-Version ${headerVersion} (supported: ${LEGACY_PROTOCOL_VERSIONS.join(", ")})`);
    }
    let connection: Connection;
    let session: HttpSession | undefined;
    if (this.options.sessions) {
      const found = this.session(sessionId, auth);
      if (!found.session) return found.output;
      session = found.session;
      connection = session.connection;
      session.lastActive = this.options.clock();
      const mismatch = this.versionClaimMismatch(messages, headerVersion ?? connection.session?.protocolVersion);
      if (mismatch) return mismatch;
    } else {
      connection = this.server.connect(NO_SINK, EPHEMERAL);
      connection.session = { protocolVersion: headerVersion ?? "2025-03-26", clientInfo: undefined, clientCapabilities: {}, initialized: true };
    }
    const hasRequest = messages.some((m) => isObject(m) && typeof m.method === "string" && m.id !== undefined);
    const exchange = new Exchange(this, mode, auth, false, session);
    const reply = connection.handle(message, exchange);
    if (!hasRequest) {
      // Notifications and responses: accepted, unless the core found them malformed.
      if (reply === undefined) return { status: 202, headers: {}, body: undefined };
      return Promise.resolve(reply).then((text) =>
        text === undefined ? { status: 202, headers: {}, body: undefined } : { status: 400, headers: { ...JSON_HEADERS }, body: text },
      );
    }
    if (typeof reply === "object") input.onDisconnect(() => exchange.clientLeft());
    return exchange.respond(reply, connection, undefined);
  }

  /**
   * In a 2025 session the version is the header's (the one `initialize` agreed on, when a 2025-03-26 client
   * sends none); a body whose `_meta` claims another one is a header mismatch, not a request of that era.
   */
  private versionClaimMismatch(messages: readonly unknown[], version: string | undefined): HttpOutput | undefined {
    for (const message of messages) {
      const params = isObject(message) && isObject(message.params) ? message.params : undefined;
      const claim = params && isObject(params._meta) ? params._meta[META_PROTOCOL_VERSION] : undefined;
      if (claim === undefined || claim === version) continue;
      const body = typeof claim === "string" ? `'${claim.length > 120 ? `${claim.slice(0, 120)}…` : claim}'` : `a ${claim === null ? "null" : typeof claim}`;
      const id = isObject(message) && isRequestIdValue(message.id) ? message.id : undefined;
      return reject("headerMismatch", `Header mismatch: MCP-Protocol-Version header value '${String(version)}' does not match body value ${body} in _meta["${META_PROTOCOL_VERSION}"]`, id);
    }
    return undefined;
  }

  private initialize(message: Record<string, unknown>, mode: "auto" | "json" | "sse", auth: AuthInfo | undefined): HttpOutput | Promise<HttpOutput> {
    if (!this.options.sessions) {
      const connection = this.server.connect(NO_SINK, EPHEMERAL);
      return new Exchange(this, mode, auth, false, undefined).respond(connection.handle(message, NO_SINK), connection, undefined);
    }
    if (this.sessions.size >= this.options.maxSessions) {
      this.sweep();
      if (this.sessions.size >= this.options.maxSessions) {
        return withHeaders(reject("serviceUnavailable", "Service Unavailable: too many sessions; try again later"), { "retry-after": "5" });
      }
    }
    let session: HttpSession | undefined;
    const connection = this.server.connect({ send: (line) => this.sendStandalone(session as HttpSession, line) });
    let refused = false;
    const reply = connection.handle(message, { send: () => undefined, failed: () => void (refused = true) });
    if (typeof reply !== "string") return reject("internalError", "Internal error: initialize did not answer"); // the core answers it at once
    if (refused) return { status: 200, headers: { ...JSON_HEADERS }, body: reply }; // no session for a refused handshake
    session = {
      id: crypto.randomUUID(),
      connection,
      subject: auth?.subject,
      lastActive: this.options.clock(),
      standalone: undefined,
      standaloneSeq: 0,
      standaloneResumable: false,
      exchanges: new Map(),
      running: new Set(),
      nextStream: 1,
      closed: false,
    };
    this.sessions.set(session.id, session);
    return { status: 200, headers: { ...JSON_HEADERS, "mcp-session-id": session.id }, body: reply };
  }

  /** The session a request names: missing header → 400, unknown / expired / another principal's → 404. */
  private session(id: string | undefined, auth: AuthInfo | undefined): { session: HttpSession; output?: undefined } | { session?: undefined; output: HttpOutput } {
    if (id === undefined) return { output: reject("badRequest", "Bad Request: Mcp-Session-Id header is required") };
    const session = this.sessions.get(id);
    if (!session || session.closed || session.subject !== auth?.subject) return { output: reject("sessionNotFound", "Session not found") };
    return { session };
  }

  // ── GET: the standalone stream, or a resumed one ──

  private get(input: HttpInput, auth: AuthInfo | undefined): HttpOutput | Promise<HttpOutput> {
    const version = input.header("mcp-protocol-version");
    if (!this.options.sessions || (version !== undefined && MODERN_PROTOCOL_VERSIONS.includes(version))) {
      return withHeaders(reject("methodNotAllowed", "Method Not Allowed: this endpoint has no standalone stream"), { allow: this.allow() });
    }
    if (!this.accepts(input.header("accept")).sse) return reject("notAcceptable", "Not Acceptable: the client must accept text/event-stream");
    const found = this.session(input.header("mcp-session-id"), auth);
    if (!found.session) return found.output;
    const session = found.session;
    session.lastActive = this.options.clock();
    const lastEventId = input.header("last-event-id");
    if (lastEventId !== undefined) {
      if (this.options.eventStore) return this.resume(session, this.options.eventStore, lastEventId);
      return reject("gone", "Gone: this server keeps no events to resume from; open a new stream without Last-Event-ID");
    }
    if (session.standalone && !session.standalone.gone && !session.standalone.ended) {
      return reject("conflict", "Conflict: this session already has a standalone stream");
    }
    return { status: 200, headers: sseHeaders(), stream: this.openStandalone(session) };
  }

  /** Opens the standalone stream: the replayed events first (on a resume), then the priming event. */
  private openStandalone(session: HttpSession, replayed: readonly StoredEvent[] = []): SseStream {
    const stream = new SseStream();
    session.standalone = stream;
    stream.keepAliveEvery(this.options.keepAliveMs);
    stream.onCancel(() => {
      if (session.standalone === stream) session.standalone = undefined;
      session.lastActive = this.options.clock();
    });
    for (const event of replayed) void stream.event(event.message, event.id);
    if (this.options.eventStore) {
      session.standaloneResumable = true;
      if (session.connection.session && session.connection.session.protocolVersion >= "2025-11-25") stream.prime(`0_${session.standaloneSeq}`, this.options.retryMs);
    }
    return stream;
  }

  /**
   * GET + `Last-Event-ID`: the events after that id, then the stream live (if it still runs). An id that is
   * not one of ours is a bad request; one whose successors are not all kept (forgotten past the store's
   * bounds, another session's, never sent) is 410 Gone — replaying only part would lose events silently.
   */
  private async resume(session: HttpSession, store: EventStore, lastEventId: string): Promise<HttpOutput> {
    const streamId = streamOfEventId(lastEventId);
    if (streamId === undefined) return reject("badRequest", "Bad Request: Last-Event-ID is not an event id of this server");
    // An in-memory store answers synchronously, so the replay and the reattachment below happen with no
    // event in between; an asynchronous store may miss events sent while it answers.
    const found = store.replay(session.id, lastEventId);
    let replay = found instanceof Promise ? await found : found;
    // Nothing sent on the stream since that id (say, only its priming event went out): nothing to replay.
    if (!replay && this.lastSequence(session, streamId) === Number(lastEventId.slice(streamId.length + 1))) replay = { streamId, events: [] };
    if (session.closed) return reject("sessionNotFound", "Session not found");
    if (!replay) {
      return reject("gone", "Gone: the events after this Last-Event-ID are no longer kept; open a new stream without Last-Event-ID (what was sent in between is lost)");
    }
    if (replay.streamId === "0") {
      if (session.standalone && !session.standalone.gone && !session.standalone.ended) session.standalone.end();
      return { status: 200, headers: sseHeaders(), stream: this.openStandalone(session, replay.events) };
    }
    const stream = new SseStream();
    for (const event of replay.events) stream.event(event.message, event.id);
    const exchange = session.exchanges.get(replay.streamId);
    if (exchange) exchange.reattach(stream);
    else stream.end();
    return { status: 200, headers: sseHeaders(), stream };
  }

  /** The sequence of the last event sent on a stream of the session (`undefined`: no such stream). */
  private lastSequence(session: HttpSession, streamId: string): number | undefined {
    return streamId === "0" ? session.standaloneSeq : session.exchanges.get(streamId)?.sequence;
  }

  /**
   * Server-initiated messages of a session: on its standalone stream. While that stream is down they are
   * stored all the same (once the client has had one), for a resume to replay; without an event store, or
   * before the first GET, they are dropped.
   */
  private sendStandalone(session: HttpSession, line: string): void | Promise<void> {
    const stream = session.standalone;
    const open = stream !== undefined && !stream.gone && !stream.ended;
    if (!this.options.eventStore || !session.standaloneResumable) return open ? stream.event(line) : undefined;
    const eventId = `0_${++session.standaloneSeq}`;
    this.append(session, "0", eventId, line);
    return open ? stream.event(line, eventId) : undefined;
  }

  // ── DELETE ──

  private async delete(input: HttpInput, auth: AuthInfo | undefined): Promise<HttpOutput> {
    if (!this.options.sessions) return withHeaders(reject("methodNotAllowed", "Method Not Allowed: this endpoint has no sessions"), { allow: this.allow() });
    const found = this.session(input.header("mcp-session-id"), auth);
    if (!found.session) return found.output;
    await this.closeSession(found.session);
    return { status: 200, headers: {}, body: undefined };
  }

  private async closeSession(session: HttpSession): Promise<void> {
    if (session.closed) return;
    session.closed = true;
    this.sessions.delete(session.id);
    session.standalone?.end();
    session.standalone = undefined;
    for (const exchange of [...session.running]) exchange.abandon();
    session.exchanges.clear();
    await session.connection.close(0);
    try {
      await this.options.eventStore?.dropSession(session.id);
    } catch (error) {
      this.report(error);
    }
  }

  /**
   * Closes sessions idle for longer than `sessionIdleMs`: no traffic, no open standalone stream, and no
   * request whose client is still there (a request whose client vanished — say, in the middle of an
   * elicitation — does not keep its session alive forever; closing the session cancels it).
   */
  private sweep(): void {
    const cutoff = this.options.clock() - this.options.sessionIdleMs;
    for (const session of this.sessions.values()) {
      if (session.lastActive > cutoff) continue;
      const streaming = session.standalone !== undefined && !session.standalone.gone && !session.standalone.ended;
      if (streaming) continue;
      let attended = false;
      for (const exchange of session.running) if (exchange.attended) attended = true;
      if (!attended) void this.closeSession(session);
    }
  }

  // ── used by exchanges ──

  /** @internal */
  append(session: HttpSession, streamId: string, eventId: string, message: string): void {
    try {
      const done = this.options.eventStore?.append(session.id, streamId, eventId, message);
      if (done) done.catch((error: unknown) => this.report(error));
    } catch (error) {
      this.report(error);
    }
  }

  /** @internal */
  track(exchange: Exchange, running: boolean): void {
    const set = exchange.listen ? this.listens : this.running;
    if (running) set.add(exchange);
    else set.delete(exchange);
  }

  /** @internal */
  openedStream(session: HttpSession, exchange: Exchange): string {
    const streamId = String(session.nextStream++);
    session.exchanges.set(streamId, exchange);
    return streamId;
  }

  /** @internal */
  report(error: unknown): void {
    try {
      console.error("[mcpgen] HTTP transport error:", error);
    } catch {
      // nothing left to tell
    }
  }
}

/**
 * One POST request with at least one JSON-RPC request in it: the sink its handlers write to. It answers with
 * JSON unless something is sent before the result, in which case the answer becomes an SSE stream.
 */
class Exchange implements Sink {
  private stream: SseStream | undefined;
  private streamId: string | undefined;
  private seq = 0;
  private resolveOutput: ((output: HttpOutput) => void) | undefined;
  /** The answer, once known; it is awaited only when the core's reply is not immediate. */
  private readonly output: Promise<HttpOutput>;
  private cancelHook: (() => void) | undefined;
  private connection: Connection | undefined;
  /** Settles once the reply is handled. */
  private handled: Promise<void> = Promise.resolve();
  private done = false;
  private left = false;
  /** The kind of error the core answered with, if it did (the status of a 2026-era JSON answer). */
  private failure: ErrorKind | undefined;

  constructor(
    private readonly transport: HttpTransport,
    private readonly mode: "auto" | "json" | "sse",
    readonly auth: AuthInfo | undefined,
    private readonly modern: boolean,
    private readonly session: HttpSession | undefined,
    /** A `subscriptions/listen` request: its stream stays open (with keep-alives) until either side ends it. */
    readonly listen = false,
  ) {
    // Ready before the core runs: a handler may send progress before its first `await`.
    this.output = new Promise<HttpOutput>((resolve) => (this.resolveOutput = resolve));
  }

  /** The client still waits for this answer (its connection, or the stream that replaced it, is open). */
  get attended(): boolean {
    if (this.stream) return !this.stream.gone;
    return !this.left;
  }

  /** The client's connection closed before the answer (2025 era: the request goes on). */
  clientLeft(): void {
    this.left = true;
  }

  /** In JSON response mode nothing can precede the response: no server→client requests either. */
  get streaming(): boolean {
    return this.mode !== "json";
  }

  failed(kind: ErrorKind): void {
    this.failure = kind;
  }

  send(message: string): void | Promise<void> {
    if (this.done) return undefined;
    if (!this.stream) {
      if (this.mode === "json" || !this.resolveOutput) return undefined;
      this.open();
    }
    return this.write(message);
  }

  /** Turns the core's reply into the HTTP answer. `requestId` (2026 era) is cancelled if the stream closes. */
  respond(reply: Reply, connection: Connection, requestId: RequestId | undefined): HttpOutput | Promise<HttpOutput> {
    if (typeof reply !== "object") {
      this.done = true;
      return this.json(reply);
    }
    this.transport.track(this, true);
    this.session?.running.add(this);
    this.connection = connection;
    if (this.mode === "sse" && !this.stream) this.open();
    const onStreamCancel = (): void => {
      if (this.modern && requestId !== undefined) connection.cancel(requestId, "The client closed the response stream");
    };
    this.handled = reply.then(
      (text) => this.finish(text),
      (error: unknown) => {
        this.transport.report(error);
        this.failure = "internalError";
        this.finish(errorResponse(requestId, "internalError"));
      },
    );
    if (this.stream) this.stream.onCancel(onStreamCancel);
    else this.cancelHook = onStreamCancel;
    return this.output;
  }

  /** The sequence of the last event sent on this exchange's stream. */
  get sequence(): number {
    return this.seq;
  }

  /** The server shuts down: the request's connection closes (a listen request then ends with its result). */
  closeConnection(): Promise<void> {
    if (!this.connection) return Promise.resolve();
    return this.connection.close(0).then(() => this.handled);
  }

  /** A resumed GET stream takes over from the POST stream; the old one ends if it is still open. */
  reattach(stream: SseStream): void {
    if (this.done) {
      stream.end();
      return;
    }
    const old = this.stream;
    this.stream = stream;
    if (old && old !== stream) old.end();
  }

  /** The session closed: end the stream without a response. */
  abandon(): void {
    if (this.done) return;
    this.done = true;
    this.transport.track(this, false);
    this.session?.running.delete(this);
    this.stream?.end();
    this.resolveOutput?.({ status: 404, headers: { ...JSON_HEADERS }, body: errorResponse(undefined, "sessionNotFound", "Session closed") });
    this.resolveOutput = undefined;
  }

  private open(): void {
    const stream = new SseStream();
    this.stream = stream;
    if (this.cancelHook) stream.onCancel(this.cancelHook);
    if (this.listen) stream.keepAliveEvery(this.transport.options.keepAliveMs);
    const session = this.session;
    if (session && this.transport.options.eventStore) {
      this.streamId = this.transport.openedStream(session, this);
      const version = session.connection.session?.protocolVersion ?? "";
      if (version >= "2025-11-25") stream.prime(`${this.streamId}_0`, this.transport.options.retryMs);
    }
    this.resolveOutput?.({ status: 200, headers: sseHeaders(), stream });
    this.resolveOutput = undefined;
  }

  private write(message: string): void | Promise<void> {
    const stream = this.stream as SseStream;
    if (this.session && this.streamId !== undefined) {
      const eventId = `${this.streamId}_${++this.seq}`;
      this.transport.append(this.session, this.streamId, eventId, message);
      return stream.event(message, eventId);
    }
    return stream.event(message);
  }

  private finish(text: string | undefined): void {
    if (this.done) return;
    this.transport.track(this, false);
    this.session?.running.delete(this);
    if (this.stream) {
      if (text !== undefined) void this.write(text);
      this.done = true;
      this.stream.end();
      if (this.session && this.streamId !== undefined) this.session.exchanges.delete(this.streamId);
      if (this.session) this.session.lastActive = this.transport.options.clock();
      return;
    }
    this.done = true;
    if (this.session) this.session.lastActive = this.transport.options.clock();
    const output = this.json(text);
    this.resolveOutput?.(output);
    this.resolveOutput = undefined;
  }

  /** A JSON answer; a cancelled request (no reply) gets an SSE stream that ends without a message. */
  private json(text: string | undefined): HttpOutput {
    if (text === undefined) {
      const stream = new SseStream();
      stream.end();
      return { status: 200, headers: sseHeaders(), stream };
    }
    const status = this.modern && this.failure !== undefined ? ERROR_TABLE[this.failure].httpStatus : 200;
    return { status, headers: { ...JSON_HEADERS }, body: text };
  }
}

function isRequestIdValue(value: unknown): value is RequestId {
  return typeof value === "string" || (typeof value === "number" && Number.isInteger(value)) || typeof value === "bigint";
}

/** An answer produced by the transport itself, from the error table: status plus a JSON-RPC error body. */
function reject(kind: ErrorKind, message: string, id?: RequestId): HttpOutput {
  return { status: ERROR_TABLE[kind].httpStatus, headers: { ...JSON_HEADERS }, body: errorResponse(id, kind, message) };
}

function withHeaders(output: HttpOutput, headers: Record<string, string>): HttpOutput {
  Object.assign(output.headers, headers);
  return output;
}

function sseHeaders(): Record<string, string> {
  return { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" };
}
