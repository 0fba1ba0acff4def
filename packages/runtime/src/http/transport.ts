/**
 * Streamable HTTP, independent of any HTTP library: an adapter turns its request into an `HttpInput` and
 * writes the `HttpOutput` it gets back (a body, or an SSE stream). The transport maps HTTP to messages for
 * the core and the core's answers back to HTTP; the status of an error answer comes from the error table.
 * Every request runs the same ladder:
 *
 *   endpoint path ─▶ Host / Origin ─▶ CORS preflight ─▶ authenticate ─▶ POST │ GET │ DELETE
 *   POST: Content-Type ─▶ Accept ─▶ body (size limit) ─▶ JSON ─▶ era
 *         2026: header/body agreement (headers.ts) ─▶ core
 *         2025: initialize │ session (Mcp-Session-Id, sessions.ts) or stateless ─▶ core
 *   response: JSON, or SSE as soon as the request sends something before its result (exchange.ts)
 *   GET: the session's standalone stream, or a resumed one (standalone.ts)
 */
import { BoundedCache } from "../cache.js";
import { settledWithin, type Connection } from "../connection.js";
import type { Sink } from "../context.js";
import { isLegacy, isModern, LEGACY_PROTOCOL_VERSIONS } from "../era.js";
import { parseMessage } from "../json.js";
import type { AuthInfo, LogLevel } from "../handler.js";
import { isObject, isRequestId, LOG_LEVEL_RANK, type RequestId } from "../protocol.js";
import { coreOf, type Server } from "../server.js";
import { Exchange, type ExchangeHost } from "./exchange.js";
import { modernHeaderProblem, paramHeaders, versionClaim, versionClaimProblem, type ParamHeader } from "./headers.js";
import { BodyError, type HttpInput, type HttpStats } from "./input.js";
import { AuthError, type Authenticate, type ResolvedHttpOptions } from "./options.js";
import { accepted, json, reject, withHeaders, type Answer, type HttpOutput } from "./output.js";
import { accepts, challenge, corsHeaders, hostAllowed, mediaType, originAllowed, preflightHeaders } from "./security.js";
import { RunningList, SessionTable, type HttpSession } from "./sessions.js";
import { isOpen, Standalone } from "./standalone.js";
import type { Bus } from "../state/bus.js";
import { SESSION_CLOSED, type SessionRecord, type SessionStore } from "../state/sessions.js";

export type { HttpOutput } from "./output.js";

type Accepted = { json: boolean; sse: boolean };
type Mode = "auto" | "json" | "sse";

type Found = { session: HttpSession; output?: undefined } | { session?: undefined; output: HttpOutput };
const NOT_FOUND = (): Found => ({ output: reject("sessionNotFound", "Session not found") });
const TOO_MANY = (): { output: HttpOutput } => ({
  output: withHeaders(reject("serviceUnavailable", "Service Unavailable: too many sessions; try again later"), { "retry-after": "5" }),
});

/**
 * Shared sessions: what the copies of one session on several instances tell each other, on the session's
 * bus channel (`SessionSync` below). `tag` names the copy that speaks.
 */
type SessionMessage =
  /** A client's answer to a server→client request; the copy whose request waits for it takes it. */
  | { k: "answer"; message: unknown }
  /** A message for the session's standalone stream, made by a copy that does not write it. */
  | { k: "send"; line: string }
  /** Copy `tag` opened the standalone stream: it writes the session's standalone events from now on. */
  | { k: "claim"; tag: string }
  /** Copy `tag` stopped writing its standalone stream; every event it wrote is in the event store. */
  | { k: "released"; tag: string }
  /** Copy `tag` changed what the session record keeps (log level, resource subscriptions). */
  | { k: "state"; tag: string; logLevel: LogLevel; subscriptions: string[] };

const sessionChannel = (sessionId: string): string => `session:${sessionId}`;
/** Requests that change what a session record keeps. */
const STATEFUL = new Set(["logging/setLevel", "resources/subscribe", "resources/unsubscribe"]);
// What the 2025 era looks for in a POST's messages (functions of the module: a closure in each request's path
// would be made at every request).
const isInitialize = (m: unknown): boolean => isObject(m) && m.method === "initialize";
const isRequest = (m: unknown): boolean => isObject(m) && typeof m.method === "string" && m.id !== undefined;
const isStateful = (m: unknown): boolean => isObject(m) && STATEFUL.has(m.method as string);
const LEVEL_NAMES = Object.fromEntries(Object.entries(LOG_LEVEL_RANK).map(([name, rank]) => [rank, name])) as Record<number, LogLevel>;

const NO_SINK: Sink = { send: () => undefined };
/** Connections that carry one exchange (2026-era requests): no session-wide notifications. */
const EPHEMERAL = { ephemeral: true } as const;
/** Distinct header values (Host, Accept) remembered; clients send few. */
const VERDICTS = 64;

export class HttpTransport implements ExchangeHost {
  readonly #sessions: SessionTable;
  readonly #standalone: Standalone;
  /** 2026-era `subscriptions/listen` requests in progress (each holds an SSE stream). */
  readonly #listens = new RunningList<Exchange>();
  /** POST exchanges running outside a session (a session holds its own: closing it ends them). */
  readonly #running = new RunningList<Exchange>();
  /** POST exchanges running, in sessions or not. */
  #exchanges = 0;
  readonly #hosts: BoundedCache<string | undefined, boolean>;
  readonly #accepts = new BoundedCache<string | undefined, Accepted>(VERDICTS, accepts);
  /** The `x-mcp-header` declarations of each tool (bounded by the number of tools). */
  readonly #toolHeaders: BoundedCache<string, readonly ParamHeader[]>;
  #sweeper: ReturnType<typeof setInterval> | undefined;
  /** The bus the copies of shared sessions talk on (`sessionStore` and `bus` both configured), else undefined. */
  readonly #shared: Bus | undefined;
  /** Stops hearing about sessions ended on other instances. */
  #unsubscribe: Promise<(() => Promise<void>) | undefined> = Promise.resolve(undefined);
  #closed = false;

  constructor(
    readonly server: Server,
    readonly options: ResolvedHttpOptions,
  ) {
    const tools = coreOf(server).tools;
    this.#sessions = new SessionTable(options.sessionIdleMs);
    this.#standalone = new Standalone(this);
    this.#hosts = new BoundedCache(VERDICTS, (host) => hostAllowed(options, host));
    this.#toolHeaders = new BoundedCache(Math.max(1, tools.size), (tool) => {
      const slot = tools.get(tool);
      return slot ? paramHeaders(slot.wire) : [];
    });
    if (options.sessions) {
      this.#sweeper = setInterval(() => this.#sweep(), Math.max(10, Math.min(60_000, Math.floor(options.sessionIdleMs / 2))));
      (this.#sweeper as { unref?: () => void }).unref?.();
    }
    const bus = (this.#shared = options.sessionStore ? options.bus : undefined);
    if (bus) {
      // A session ended on any instance (DELETE) ends here too.
      this.#unsubscribe = bus
        .subscribe(SESSION_CLOSED, (id) => {
          const session = this.#sessions.get(id);
          if (session) void this.#closeSession(session, false);
        })
        .catch((error: unknown) => (this.report(error), undefined));
    }
  }

  get stats(): HttpStats {
    let streams = 0;
    for (const exchange of this.#listens) if (exchange.attended) streams++;
    for (const session of this.#sessions.values()) if (session.standalone) streams++;
    return { sessions: this.#sessions.size, streams, exchanges: this.#exchanges };
  }

  /**
   * Answers one request; never rejects (a failure of the runtime itself becomes a 500). The answer is
   * immediate when nothing needs waiting for (an adapter may write it at once), else a promise.
   */
  handle(input: HttpInput): HttpOutput | Promise<HttpOutput> {
    let immediate: HttpOutput | undefined;
    let later: Answer | undefined;
    this.serve(input, (output) => (later ? later(output) : (immediate = output)));
    return immediate ?? new Promise((resolve) => (later = resolve));
  }

  /**
   * Answers one request by calling `answer` once, at once when nothing needs waiting for. The same as
   * `handle` without a promise in between: what an adapter that writes the answer itself uses.
   */
  serve(input: HttpInput, answer: Answer): void {
    try {
      this.#route(input, answer);
    } catch (error) {
      answer(this.#crash(error));
    }
  }

  /** Closes every session and stream; requests in flight are cancelled. Later requests get 503. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#sweeper) clearInterval(this.#sweeper);
    await (await this.#unsubscribe)?.().catch((error: unknown) => this.report(error));
    // Closing a listen request's connection ends it with a result (the server ends the subscription).
    await settledWithin([...this.#listens].map((exchange) => exchange.closeConnection()), 1000);
    for (const exchange of [...this.#listens]) exchange.abandon();
    // With a shared session store the sessions live on in the other instances.
    await Promise.all([...this.#sessions.values()].map((session) => this.#closeSession(session, !this.options.sessionStore)));
    for (const exchange of this.#running) exchange.abandon();
    this.#running.clear();
  }

  // ── ExchangeHost ──

  now(): number {
    return this.options.clock();
  }

  append(session: HttpSession, streamId: string, eventId: string, message: string): void {
    try {
      const done = this.options.eventStore?.append(session.id, streamId, eventId, message);
      if (done) session.lastAppend = done.catch((error: unknown) => this.report(error));
    } catch (error) {
      this.report(error);
    }
  }

  track(exchange: Exchange, running: boolean): void {
    if (!exchange.listen) {
      this.#exchanges += running ? 1 : -1;
      if (exchange.session) return;
    }
    const list = exchange.listen ? this.#listens : this.#running;
    if (running) list.add(exchange);
    else list.delete(exchange);
  }

  openedStream(session: HttpSession, exchange: Exchange): string {
    const streamId = `${session.tag}${session.nextStream++}`;
    session.exchanges.set(streamId, exchange);
    return streamId;
  }

  opened(session: HttpSession): void {
    session.holder = true;
    const bus = this.#shared;
    if (!bus) return;
    session.claimPending = true;
    // Published once this copy hears the channel, so that the claim comes back to it.
    session.attached
      .then((listening) => {
        if (!listening) throw new Error(`session ${session.id} does not hear its bus channel: its standalone stream is not announced to the other instances`);
        return bus.publish(sessionChannel(session.id), JSON.stringify({ k: "claim", tag: session.tag } satisfies SessionMessage));
      })
      .catch((error: unknown) => {
        this.report(error);
        session.claimPending = false; // no echo will come: write what arrives from now on
      });
  }

  report(error: unknown): void {
    try {
      console.error("[mcpgen] HTTP transport error:", error);
    } catch {
      // nothing left to tell
    }
  }

  // ── the ladder ──

  #crash(error: unknown): HttpOutput {
    this.report(error);
    return reject("internalError", "Internal error");
  }

  /** Hands an answer that may still be coming to `answer` (a failure of the runtime itself becomes a 500). */
  #settle(output: HttpOutput | Promise<HttpOutput>, answer: Answer): void {
    if (output instanceof Promise) output.then(answer, (error: unknown) => answer(this.#crash(error)));
    else answer(output);
  }

  #route(input: HttpInput, answer: Answer): void {
    const options = this.options;
    if (input.path !== options.path) return answer(reject("notFound", `Not Found: the MCP endpoint is ${options.path}`));
    if (!this.#hosts.get(input.header("host"))) return answer(reject("forbidden", "Forbidden: Host header not allowed"));
    const origin = input.header("origin");
    if (origin !== undefined && !originAllowed(options, origin)) return answer(reject("forbidden", "Forbidden: Origin not allowed"));
    const cors = corsHeaders(options, origin);
    this.#routeMethod(input, cors !== undefined, cors ? (output) => answer(withHeaders(output, cors)) : answer);
  }

  #routeMethod(input: HttpInput, corsAllowed: boolean, answer: Answer): void {
    if (this.#closed) return answer(reject("serviceUnavailable", "Service Unavailable: the server is shutting down"));
    if (input.method === "OPTIONS") {
      if (!corsAllowed) return answer(this.#notAllowed("Method Not Allowed"));
      return answer({ status: 204, headers: preflightHeaders(this.options, input.header("access-control-request-headers")), body: undefined });
    }
    const authenticate = this.options.authenticate;
    if (!authenticate) return this.#dispatch(input, undefined, answer);
    this.#authenticated(input, authenticate).then((auth) => {
      if (!auth.granted) return answer(auth.output);
      try {
        this.#dispatch(input, auth.granted, answer);
      } catch (error) {
        answer(this.#crash(error));
      }
    }, (error: unknown) => answer(this.#crash(error)));
  }

  /** Who the request comes from, or the answer that refuses it. */
  async #authenticated(input: HttpInput, authenticate: Authenticate): Promise<{ granted: AuthInfo; output?: undefined } | { granted?: undefined; output: HttpOutput }> {
    let auth: AuthInfo | undefined;
    let failure: AuthError | undefined;
    try {
      auth = await authenticate(input);
    } catch (error) {
      failure = error instanceof AuthError ? error : new AuthError("Authentication failed");
      if (!(error instanceof AuthError)) this.report(error);
    }
    if (failure?.error === "insufficient_scope") {
      return { output: withHeaders(reject("forbidden", `Forbidden: ${failure.message}`), { "www-authenticate": challenge(this.options, failure) }) };
    }
    if (!auth) {
      return {
        output: withHeaders(reject("unauthorized", `Unauthorized: ${failure?.message ?? "authentication required"}`), {
          "www-authenticate": challenge(this.options, failure),
        }),
      };
    }
    return { granted: auth };
  }

  #dispatch(input: HttpInput, auth: AuthInfo | undefined, answer: Answer): void {
    switch (input.method) {
      case "POST":
        return this.#post(input, auth, answer);
      case "GET":
        return this.#settle(this.#get(input, auth), answer);
      case "DELETE":
        return this.#settle(this.#delete(input, auth), answer);
      default:
        return answer(this.#notAllowed(`Method Not Allowed: ${input.method}`));
    }
  }

  #notAllowed(message: string): HttpOutput {
    return withHeaders(reject("methodNotAllowed", message), { allow: this.options.sessions ? "GET, POST, DELETE" : "POST" });
  }

  // ── POST ──

  #post(input: HttpInput, auth: AuthInfo | undefined, answer: Answer): void {
    if (mediaType(input.header("content-type")) !== "application/json") {
      return answer(reject("unsupportedMediaType", "Unsupported Media Type: Content-Type must be application/json"));
    }
    const accept = this.#accepts.get(input.header("accept"));
    if (!accept.json && !accept.sse) {
      return answer(reject("notAcceptable", "Not Acceptable: the client must accept application/json or text/event-stream"));
    }
    input.text(this.options.maxBodyBytes).then(
      (text) => {
        try {
          this.#received(input, text, accept, auth, answer);
        } catch (error) {
          answer(this.#crash(error));
        }
      },
      (error: unknown) => {
        if (!(error instanceof BodyError)) return answer(this.#crash(error));
        answer(reject(error.kind, error.kind === "payloadTooLarge" ? `Payload Too Large: the limit is ${this.options.maxBodyBytes} bytes` : `Bad Request: ${error.message}`));
      },
    );
  }

  #received(input: HttpInput, text: string, accept: Accepted, auth: AuthInfo | undefined, answer: Answer): void {
    let message: unknown;
    try {
      message = input.parse ? input.parse(text) : parseMessage(text);
    } catch (error) {
      return answer(reject("parseError", `Parse error: ${(error as Error).message}`));
    }
    const headerVersion = input.header("mcp-protocol-version");
    const claim = versionClaim(message);
    const sessionId = this.options.sessions ? input.header("mcp-session-id") : undefined;
    if (isModern(headerVersion) || (claim !== undefined && sessionId === undefined)) return this.#modern(input, message, headerVersion, claim, accept, auth, answer);
    this.#legacy(input, message, headerVersion, sessionId, this.#mode(accept), auth, answer);
  }

  /** The response mode of a request: the configured one, narrowed by what the client accepts. */
  #mode(accept: Accepted): Mode {
    if (!accept.sse) return "json";
    if (!accept.json) return "sse";
    return this.options.responseMode;
  }

  /** 2026 era: stateless, one message per POST; the headers must agree with the body. */
  #modern(input: HttpInput, message: unknown, headerVersion: string | undefined, claim: unknown, accept: Accepted, auth: AuthInfo | undefined, answer: Answer): void {
    if (!isObject(message)) return answer(reject("invalidRequest", "Invalid Request: the 2026-07-28 protocol takes one JSON-RPC message per POST"));
    const id = isRequestId(message.id) ? message.id : undefined;
    const method = message.method;
    if (typeof method !== "string") return answer(reject("invalidRequest", "Invalid Request: clients send requests and notifications only", id));
    if (message.id === undefined) return answer(accepted()); // no client notification needs anything over HTTP
    if (method === "initialize") {
      return answer(reject("methodNotFound", "Method not found: initialize (the 2026-07-28 protocol has no handshake; use server/discover)", id));
    }
    const params = isObject(message.params) ? message.params : undefined;
    const problem = modernHeaderProblem(input, headerVersion, method, params, claim, this.#toolHeaders);
    if (problem) return answer(reject(problem.kind, problem.message, id));
    // The core checks and answers every request; `subscriptions/listen` just needs its answer carried as a
    // stream that stays open (its acknowledgment comes first, the result only when it ends).
    const listen = method === "subscriptions/listen";
    const connection = this.server.connect(NO_SINK, EPHEMERAL);
    const exchange = new Exchange(this, listen && accept.sse ? "sse" : this.#mode(accept), auth, true, undefined, answer, listen);
    const requestId = id as RequestId;
    input.onDisconnect(() => connection.cancel(requestId, "The client closed the request"));
    const reply = connection.handle(message, exchange);
    if (listen && !accept.sse && typeof reply === "object") {
      connection.cancel(requestId, "The client does not accept a stream");
      return answer(reject("notAcceptable", "Not Acceptable: subscriptions/listen answers with a stream; the client must accept text/event-stream", id));
    }
    exchange.respond(reply, connection, requestId);
  }

  /** 2025 era: `initialize` opens a session (unless stateless); everything else belongs to one. */
  #legacy(input: HttpInput, message: unknown, headerVersion: string | undefined, sessionId: string | undefined, mode: Mode, auth: AuthInfo | undefined, answer: Answer): void {
    const messages = Array.isArray(message) ? message : [message];
    if (messages.length === 0) return answer(reject("invalidRequest", "Invalid Request: empty batch"));
    if (messages.some(isInitialize)) {
      if (messages.length > 1) return answer(reject("invalidRequest", "Invalid Request: initialize must be sent on its own"));
      return this.#settle(this.#initialize(message, mode, auth), answer);
    }
    if (headerVersion !== undefined && !isLegacy(headerVersion)) {
      return answer(reject("badRequest", `Bad Request: unsupported MCP-Protocol-Version ${headerVersion} (supported: ${LEGACY_PROTOCOL_VERSIONS.join(", ")})`));
    }
    if (!this.options.sessions) {
      const connection = this.server.connect(NO_SINK, { ephemeral: true, session: { protocolVersion: headerVersion ?? "2025-03-26" } });
      return this.#run(input, message, messages, connection, undefined, mode, auth, answer);
    }
    const found = this.#session(sessionId, auth);
    if (!(found instanceof Promise)) return this.#inSession(found, input, message, messages, headerVersion, mode, auth, answer);
    found.then((later) => this.#inSession(later, input, message, messages, headerVersion, mode, auth, answer)).catch((error: unknown) => answer(this.#crash(error)));
  }

  /** 2025 era: the messages of one POST to the session found, if it was; their version claims must agree with it. */
  #inSession(found: Found, input: HttpInput, message: unknown, messages: unknown[], headerVersion: string | undefined, mode: Mode, auth: AuthInfo | undefined, answer: Answer): void {
    if (!found.session) return answer(found.output);
    const session = found.session;
    const version = headerVersion ?? session.connection.session?.protocolVersion;
    for (const m of messages) {
      const mismatch = versionClaimProblem(versionClaim(m), version);
      if (mismatch) return answer(reject("headerMismatch", mismatch, isObject(m) && isRequestId(m.id) ? m.id : undefined));
    }
    this.#run(input, message, messages, session.connection, session, mode, auth, answer);
  }

  /** 2025 era: the messages of one POST, in a session or stateless. */
  #run(input: HttpInput, message: unknown, messages: unknown[], connection: Connection, session: HttpSession | undefined, mode: Mode, auth: AuthInfo | undefined, answer: Answer): void {
    const hasRequest = messages.some(isRequest);
    if (session) this.#forwardAnswers(session, messages);
    const exchange = new Exchange(this, mode, auth, false, session, answer);
    let reply = connection.handle(message, exchange);
    if (session?.record && messages.some(isStateful)) {
      // The other copies (and the record) know of the change before the client hears it is done.
      const shared = session;
      reply = Promise.resolve(reply).then(async (text) => (await this.#saveState(shared), text));
    }
    if (!hasRequest) {
      // Notifications and responses: accepted, unless the core found them malformed (then 400 with its answer).
      if (reply === undefined) return answer(accepted());
      return this.#settle(
        Promise.resolve(reply).then((text) => (text === undefined ? accepted() : { ...json(text), status: 400 })),
        answer,
      );
    }
    if (typeof reply === "object") input.onDisconnect(() => exchange.clientLeft());
    exchange.respond(reply, connection, undefined);
  }

  /** 2025 era: the handshake; with sessions, the connection it succeeds on becomes a new session. */
  #initialize(message: unknown, mode: Mode, auth: AuthInfo | undefined): HttpOutput | Promise<HttpOutput> {
    if (!this.options.sessions) {
      const connection = this.server.connect(NO_SINK, EPHEMERAL);
      return new Promise((answer) => new Exchange(this, mode, auth, false, undefined, answer).respond(connection.handle(message, NO_SINK), connection, undefined));
    }
    if (this.#full()) return TOO_MANY().output;
    let session: HttpSession | undefined;
    const id = crypto.randomUUID();
    const connection = this.server.connect(this.#sessionSink(() => session as HttpSession), { sessionId: id });
    let refused = false;
    const reply = connection.handle(message, { send: () => undefined, failed: () => void (refused = true) });
    if (typeof reply !== "string") return reject("internalError", "Internal error: initialize did not answer"); // the core answers it at once
    if (refused) return json(reply); // no session for a refused handshake (2025 era: 200 with the error inside)
    const store = this.options.sessionStore;
    const established = connection.session;
    const record: SessionRecord | undefined = store && {
      protocolVersion: established?.protocolVersion ?? "2025-03-26",
      clientInfo: established?.clientInfo,
      clientCapabilities: established?.clientCapabilities,
      subject: auth?.subject,
    };
    session = this.#sessions.create(connection, auth?.subject, this.now(), id, record);
    session.holder = true; // the first copy writes the standalone events until another copy opens the stream
    this.#attach(session);
    const answer = withHeaders(json(reply), { "mcp-session-id": session.id });
    if (!store || !record) return answer;
    // Stored before the client learns the id: its next request may reach another instance.
    return store.save(session.id, record, this.options.sessionIdleMs).then(
      () => answer,
      (error: unknown) => {
        this.report(error);
        void this.#closeSession(session as HttpSession, false);
        return withHeaders(reject("serviceUnavailable", "Service Unavailable: the session could not be stored; try again later"), { "retry-after": "1" });
      },
    );
  }

  /** The session a request names: missing header → 400, unknown / expired / another principal's → 404. */
  #session(id: string | undefined, auth: AuthInfo | undefined): Found | Promise<Found> {
    if (id === undefined) return { output: reject("badRequest", "Bad Request: Mcp-Session-Id header is required") };
    const session = this.#sessions.find(id, auth?.subject);
    if (session) return this.#touch(session);
    const store = this.options.sessionStore;
    if (!store || this.#sessions.get(id)) return NOT_FOUND();
    return this.#restore(store, id, auth);
  }

  /** Traffic on a session: it stays alive here, and (at most every tenth of the idle limit) in the store. */
  #touch(session: HttpSession): Found {
    const now = this.now();
    this.#sessions.touch(session, now);
    const store = this.options.sessionStore;
    if (store && now - session.refreshedAt >= Math.max(1000, Math.floor(this.options.sessionIdleMs / 10))) {
      session.refreshedAt = now;
      store.refresh(session.id, this.options.sessionIdleMs).catch((error: unknown) => this.report(error));
    }
    return { session };
  }

  /**
   * A shared session hears the client's answers to its server→client requests (elicitation, sampling,
   * roots) that reached another instance: each instance forwards the answers it receives on the session's
   * channel, and the one whose request waits for it takes it (the others drop an id they never asked).
   */
  #attach(session: HttpSession): void {
    const bus = this.#shared;
    if (!bus) return;
    const subscribed = bus
      .subscribe(sessionChannel(session.id), (text) => {
        if (!session.closed) this.#heard(session, JSON.parse(text) as SessionMessage);
      })
      .catch((error: unknown) => (this.report(error), undefined));
    session.attached = subscribed;
    session.detach = async () => (await subscribed)?.();
  }

  /**
   * SessionSync: the copies of a shared session keep one standalone stream between them. The copy that
   * opened it last (the holder) writes every standalone event, also while the stream is down, so that a
   * resume finds them in the event store; the others hand it their messages (`send`) and leave change
   * notifications, which every instance hears, to it. A copy that opens the stream claims it; the old
   * holder ends its stream, and says once its last event is stored (`released`), so that the new holder
   * re-sends what it wrote after the client's `Last-Event-ID` was read. The bus delivers to every instance
   * in one order, so a message every copy hears went to the old holder if it came before the claim and to
   * the new one if after: the new holder takes only what reaches it after its own claim has come back
   * (`claimPending`), and each event is written once. Log level and resource subscriptions are kept in the
   * record and in every copy (`state`).
   */
  #heard(session: HttpSession, message: SessionMessage): void {
    switch (message.k) {
      case "answer":
        session.connection.handle(message.message, NO_SINK);
        return;
      case "send":
        if (writesShared(session)) void this.#standalone.send(session, message.line);
        return;
      case "claim":
        if (message.tag === session.tag) session.claimPending = false;
        else if (session.holder) void this.#release(session);
        return;
      case "released": {
        const store = this.options.eventStore;
        if (store && session.holder && session.adopted?.streamId === `${message.tag}0`) this.#standalone.catchUp(session, store).catch((error: unknown) => this.report(error));
        return;
      }
      case "state":
        if (message.tag !== session.tag) this.#applyState(session, message.logLevel, message.subscriptions);
        return;
    }
  }

  #tell(session: HttpSession, message: SessionMessage): Promise<void> {
    return (this.#shared as Bus).publish(sessionChannel(session.id), JSON.stringify(message)).catch((error: unknown) => this.report(error));
  }

  /** What a session's connection sends outside a request: on the standalone stream, through its holder. */
  #sessionSink(session: () => HttpSession): Sink {
    if (!this.#shared) return { send: (line) => this.#standalone.send(session(), line) };
    return {
      send: (line) => (session().holder ? this.#standalone.send(session(), line) : this.#tell(session(), { k: "send", line })),
      fanout: (line) => void (writesShared(session()) && this.#standalone.send(session(), line)),
    };
  }

  /** Another copy opened the standalone stream: this one stops writing it. */
  async #release(session: HttpSession): Promise<void> {
    session.holder = false;
    session.adopted = undefined;
    session.standalone?.end();
    session.standalone = undefined;
    await session.lastAppend;
    await this.#tell(session, { k: "released", tag: session.tag });
  }

  /** After a request that may change them: the session's log level and subscriptions, to the record and the other copies. */
  async #saveState(session: HttpSession): Promise<void> {
    const record = session.record;
    const store = this.options.sessionStore;
    if (!record || !store || session.closed) return;
    const connection = session.connection;
    const logLevel = LEVEL_NAMES[connection.logThreshold] ?? "info";
    const subscriptions = connection.services.subscriptions.urisOf(connection);
    if ((record.logLevel ?? "info") === logLevel && sameList(record.subscriptions ?? [], subscriptions)) return;
    session.record = { ...record, logLevel, subscriptions };
    await Promise.all([
      store.save(session.id, session.record, this.options.sessionIdleMs).catch((error: unknown) => this.report(error)),
      this.#tell(session, { k: "state", tag: session.tag, logLevel, subscriptions }),
    ]);
  }

  #applyState(session: HttpSession, logLevel: LogLevel | undefined, subscriptions: readonly string[] | undefined): void {
    const connection = session.connection;
    if (logLevel !== undefined) connection.setLogThreshold(LOG_LEVEL_RANK[logLevel]);
    connection.services.subscriptions.replace(connection, subscriptions ?? []);
    if (session.record) session.record = { ...session.record, logLevel, subscriptions: [...(subscriptions ?? [])] };
  }

  /** Answers the client sent in `session` go to every instance holding it (see `#attach`). */
  #forwardAnswers(session: HttpSession, messages: readonly unknown[]): void {
    if (!this.#shared) return;
    for (const m of messages) {
      if (isObject(m) && m.method === undefined && isRequestId(m.id) && ("result" in m || "error" in m)) void this.#tell(session, { k: "answer", message: m });
    }
  }

  /** A session another instance opened: taken over from the store, with the state `initialize` established. */
  async #restore(store: SessionStore, id: string, auth: AuthInfo | undefined): Promise<Found> {
    let record;
    try {
      record = await store.load(id);
    } catch (error) {
      this.report(error);
      return { output: withHeaders(reject("serviceUnavailable", "Service Unavailable: the session store cannot be reached"), { "retry-after": "1" }) };
    }
    if (!record || record.subject !== auth?.subject || this.#closed) return NOT_FOUND();
    const raced = this.#sessions.get(id); // restored meanwhile by a concurrent request
    if (raced) return raced.subject === auth?.subject && !raced.closed ? this.#touch(raced) : NOT_FOUND();
    if (this.#full()) return TOO_MANY();
    let session: HttpSession | undefined;
    const connection = this.server.connect(this.#sessionSink(() => session as HttpSession), {
      session: { protocolVersion: record.protocolVersion, clientInfo: record.clientInfo, clientCapabilities: record.clientCapabilities ?? {} },
      sessionId: id,
    });
    connection.services.subscriptions.addSession(connection);
    session = this.#sessions.create(connection, record.subject, this.now(), id, record);
    this.#applyState(session, record.logLevel, record.subscriptions);
    this.#attach(session);
    return { session };
  }

  // ── GET, DELETE ──

  #get(input: HttpInput, auth: AuthInfo | undefined): HttpOutput | Promise<HttpOutput> {
    if (!this.options.sessions || isModern(input.header("mcp-protocol-version"))) return this.#notAllowed("Method Not Allowed: this endpoint has no standalone stream");
    if (!this.#accepts.get(input.header("accept")).sse) return reject("notAcceptable", "Not Acceptable: the client must accept text/event-stream");
    const found = this.#session(input.header("mcp-session-id"), auth);
    const open = (found: Found): HttpOutput | Promise<HttpOutput> => (found.session ? this.#standalone.get(found.session, input.header("last-event-id")) : found.output);
    return found instanceof Promise ? found.then(open) : open(found);
  }

  async #delete(input: HttpInput, auth: AuthInfo | undefined): Promise<HttpOutput> {
    if (!this.options.sessions) return this.#notAllowed("Method Not Allowed: this endpoint has no sessions");
    const found = await this.#session(input.header("mcp-session-id"), auth);
    if (!found.session) return found.output;
    await this.#closeSession(found.session, true);
    const store = this.options.sessionStore;
    if (store) {
      // Forgotten in the store first, so that no instance restores it after hearing it ended.
      try {
        await store.delete(found.session.id);
        await this.options.bus?.publish(SESSION_CLOSED, found.session.id);
      } catch (error) {
        this.report(error);
      }
    }
    return { status: 200, headers: {}, body: undefined };
  }

  /** Ends a session here; `ended`: for good (its stored events go too), not just dropped by this instance. */
  async #closeSession(session: HttpSession, ended: boolean): Promise<void> {
    if (!this.#sessions.remove(session)) return;
    session.standalone?.end();
    session.standalone = undefined;
    for (const exchange of [...session.running]) exchange.abandon();
    session.exchanges.clear();
    await session.connection.close(0);
    await session.detach?.().catch((error: unknown) => this.report(error));
    if (!ended) return;
    try {
      await this.options.eventStore?.dropSession(session.id);
    } catch (error) {
      this.report(error);
    }
  }

  /** Whether this instance holds `maxSessions` sessions, even after closing the idle ones. */
  #full(): boolean {
    if (this.#sessions.size < this.options.maxSessions) return false;
    this.#sweep();
    return this.#sessions.size >= this.options.maxSessions;
  }

  /** Closes the sessions idle past `sessionIdleMs` (closing a session cancels its requests). */
  #sweep(): void {
    // With a shared store the session may be active on another instance: it expires there by its TTL.
    for (const session of this.#sessions.sweep(this.now())) void this.#closeSession(session, !this.options.sessionStore);
  }
}

/** Whether this copy writes what every copy of `session` hears (see `#heard`). */
function writesShared(session: HttpSession): boolean {
  return session.holder && !session.claimPending;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}
