/**
 * What every handler-backed request shares — `tools/call`, `resources/read`, `prompts/get`,
 * `completion/complete`: the handler context (`signal`, `progress`, `log`, `auth`, `elicit` / `sample` /
 * `listRoots`, change signals), cancellation, and the run skeleton
 *
 *   prepare (load, validate) ─▶ open `requestState` (2026) ─▶ handler, raced against cancellation
 *     ─▶ `input_required` round (2026) │ succeed (shape, serialize) │ fail (map the error)
 *
 * A subclass says what to prepare, how to call its handler and how to serialize the outcome. One object is
 * both the pipeline and the handler's `ctx`, so a request allocates little.
 */
import { logInternalError, membersResponse, refuse, resultResponse, type ErrorKind } from "./errors.js";
import type {
  AuthInfo,
  ElicitParams,
  ElicitResult,
  InputOptions,
  ListKind,
  LogLevel,
  RootsResult,
  SampleParams,
  SampleResult,
  ToolContext,
} from "./handler.js";
import { ClientRequestError, ToolError } from "./handler.js";
import { INPUT_METHODS, isAnswer, type InputMethod, type SealedInput, type StateBinding } from "./input.js";
import { idJson } from "./json.js";
import { Pending } from "./pending.js";
import { isObject, logLevelRank, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, type RequestId } from "./protocol.js";
import type { Cancellable, Channel, Reply, RequestContext, Sink, TaskHooks } from "./context.js";

const RESOLVED: Promise<void> = Promise.resolve();
/** What the race against cancellation resolves to when the client cancelled first. */
const CANCELLED = Symbol("cancelled");
/** … and when the handler asked for input the 2026-era request does not carry yet. */
const INPUT_REQUIRED = Symbol("input required");

/** The connection a handler-backed request starts on (what the method table and the tasks use of it). */
export interface InvocationHost {
  /**
   * Starts `invocation` as the request `ctx.id` (or says the id is taken). A function makes it once the id is
   * known to be free (for a start with effects of its own); a string it returns is a -32602 message.
   */
  start(ctx: RequestContext, invocation: Invocation | (() => Invocation | string)): Reply;
}

/** 2026 era: the input a handler asked for in this round, and the answers it used. */
interface Round {
  readonly asked: Map<string, { method: InputMethod; params: Record<string, unknown> }>;
  readonly used: Record<string, unknown>;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Rejects the promises of unanswered asks once the request has ended. */
  readonly stops: ((reason: unknown) => void)[];
}

export abstract class Invocation implements ToolContext, Cancellable {
  // The fields are `declare`d and assigned in the constructor: initialized class fields (ES2022 [[Define]]) in
  // a class that is extended cost a measurable share of a fast `tools/call` (npm run bench: ~0.2 µs per call).
  protected declare readonly conn: Channel;
  declare readonly requestId: RequestId;
  declare readonly meta: Readonly<Record<string, unknown>> | undefined;
  declare readonly protocolVersion: string;
  protected declare readonly modern: boolean;
  protected declare readonly sink: Sink;
  /** 2026 era: the request's params (`inputResponses`, `requestState`). */
  protected declare readonly params: Readonly<Record<string, unknown>> | undefined;
  /** Created on first use of `signal`: an AbortController costs more than the rest of a fast call. */
  private declare controller: AbortController | undefined;
  private declare cancelled: boolean;
  private declare cancelReason: unknown;
  private declare readonly progressToken: string | number | bigint | undefined;
  /** 2026 era: the request's own log threshold (no `_meta` level, no log messages). */
  private declare readonly logThreshold: number | undefined;
  /** The last progress sent (undefined before the first: a number field would box a double per call). */
  private declare lastProgress: number | undefined;
  private declare done: boolean;
  /** A waiting call's response, resolved by what settles first (see `call`). */
  private declare pending: Pending | undefined;
  /** 2026 era: answers of earlier rounds, from a verified `requestState`. */
  private declare sealed: SealedInput | undefined;
  private declare round: Round | undefined;
  private declare inputSeq: number;
  private declare usedOutgoing: boolean;
  /** The handler's own promise, awaited (within a grace period) when the connection shuts down. */
  declare running: PromiseLike<unknown> | undefined;
  /** Set when this call may run as a task (tasks/run.ts): asks for input may go through the task. */
  declare taskRun: TaskHooks | undefined;
  declare nextInTable: Cancellable | undefined;

  constructor(ctx: RequestContext) {
    const modern = ctx.era === "modern";
    const meta = ctx.meta;
    this.conn = ctx.conn;
    this.requestId = ctx.id;
    this.meta = meta;
    this.protocolVersion = ctx.version;
    this.modern = modern;
    this.sink = ctx.sink;
    // 2026 era, for requests that may ask for input: the params carry `inputResponses` / `requestState`.
    this.params = modern && this.asksAllowed ? ctx.params : undefined;
    this.controller = undefined;
    this.cancelled = false;
    this.cancelReason = undefined;
    const token = meta?.progressToken;
    this.progressToken = typeof token === "string" || typeof token === "number" || typeof token === "bigint" ? token : undefined;
    this.logThreshold = modern ? logLevelRank(meta?.[META_LOG_LEVEL]) : undefined;
    this.lastProgress = undefined;
    this.done = false;
    this.pending = undefined;
    this.sealed = undefined;
    this.round = undefined;
    this.inputSeq = 0;
    this.usedOutgoing = false;
    this.running = undefined;
    this.taskRun = undefined;
    this.nextInTable = undefined;
  }

  // ── the pipeline, per kind of request ──

  /** Loads and validates; a string is the response, given without calling the handler. */
  protected abstract prepare(): string | undefined | Promise<string | undefined>;
  /** Calls the handler (after `prepare` let it through). */
  protected abstract invoke(): unknown;
  /** Serializes the response to what the handler returned. */
  protected abstract succeed(outcome: unknown): string;
  /** Serializes the response to what the handler threw (or a failed load). */
  protected abstract fail(error: unknown): string;
  /** What a 2026-era `requestState` of this request is bound to. */
  protected abstract binding(): StateBinding;
  /** Whether the handler may ask the client for input (`elicit`, `sample`, `listRoots`). */
  protected get asksAllowed(): boolean {
    return true;
  }

  // ── ToolContext ──

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.cancelled) this.controller.abort(this.cancelReason);
    }
    return this.controller.signal;
  }

  get clientInfo(): Readonly<{ name: string; version: string }> | undefined {
    return this.modern ? (this.meta?.[META_CLIENT_INFO] as { name: string; version: string } | undefined) : this.conn.session?.clientInfo;
  }

  get clientCapabilities(): Readonly<Record<string, unknown>> | undefined {
    return this.modern ? (this.meta?.[META_CLIENT_CAPABILITIES] as Record<string, unknown>) : this.conn.session?.clientCapabilities;
  }

  get auth(): AuthInfo | undefined {
    return this.sink.auth;
  }

  progress(progress: number, total?: number, message?: string): Promise<void> {
    const token = this.progressToken;
    // Progress must increase, and stops with the request (completed or cancelled).
    if (token === undefined || !this.live || !Number.isFinite(progress) || (this.lastProgress !== undefined && !(progress > this.lastProgress))) return RESOLVED;
    this.lastProgress = progress;
    // The token is echoed as the client wrote it (a bigint beyond 2^53), so the line is put together here.
    let members = `"progressToken":${idJson(token)},"progress":${JSON.stringify(progress)}`;
    if (total !== undefined && Number.isFinite(total)) members += `,"total":${JSON.stringify(total)}`;
    if (message !== undefined) members += `,"message":${JSON.stringify(String(message))}`;
    return this.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{${members}}}`);
  }

  log(level: LogLevel, data: unknown, logger?: string): Promise<void> {
    const threshold = this.modern ? this.logThreshold : this.conn.logThreshold;
    const rank = logLevelRank(level);
    if (threshold === undefined || rank === undefined || rank < threshold || !this.live) return RESOLVED;
    const params: Record<string, unknown> = { level, data: data === undefined ? null : data };
    if (logger !== undefined) params.logger = logger;
    return this.notify("notifications/message", params);
  }

  elicit(params: ElicitParams, options?: InputOptions): Promise<ElicitResult> {
    return this.ask("elicitation/create", params as unknown as Record<string, unknown>, options) as Promise<ElicitResult>;
  }

  sample(params: SampleParams, options?: InputOptions): Promise<SampleResult> {
    return this.ask("sampling/createMessage", params, options) as Promise<SampleResult>;
  }

  listRoots(options?: InputOptions): Promise<RootsResult> {
    return this.ask("roots/list", {}, options) as Promise<RootsResult>;
  }

  resourceUpdated(uri: string): void {
    this.conn.services.resourceUpdated(uri);
  }

  listChanged(kind: ListKind): void {
    this.conn.services.listChanged(kind);
  }

  // ── lifecycle ──

  /** Aborts `signal` and stops waiting for the handler: a cancelled request gets no response. */
  cancel(reason: unknown): PromiseLike<unknown> | undefined {
    if (!this.done && !this.cancelled) {
      this.cancelled = true;
      this.cancelReason = reason;
      this.controller?.abort(reason);
      this.settle(CANCELLED);
      this.stopInput(reason, true);
      this.conn.release(this);
    }
    return this.running;
  }

  /**
   * Runs the pipeline: the serialized response, or `undefined` when cancelled. Given at once when nothing on
   * the way waits (a synchronous handler), else later, never rejecting: on the common path (prepared at once,
   * an async handler) as a `Pending`, with no promise of the runtime's own; after a load, as a promise.
   */
  run(): Reply {
    try {
      const early = this.prepare();
      if (early !== undefined) return typeof early === "string" ? this.end(early) : this.runAfter(early);
      if (this.opensInput) return this.runAfter(undefined);
    } catch (error) {
      return this.end(this.failure(error));
    }
    return this.call();
  }

  /** The slower start: a load to wait for, or (2026 era) the answers of earlier rounds to open first. */
  private async runAfter(prepared: Promise<string | undefined> | undefined): Promise<string | undefined> {
    try {
      try {
        const early = await prepared;
        if (this.cancelled) return this.end(undefined);
        if (early !== undefined) return this.end(early);
        if (this.opensInput) {
          const problem = await this.openInput();
          if (problem !== undefined) return this.end(this.error("invalidParams", `Invalid params: ${problem}`));
          if (this.cancelled) return this.end(undefined);
        }
      } catch (error) {
        return this.end(this.failure(error));
      }
      return await this.call();
    } catch (error) {
      return this.crashed(error);
    }
  }

  /**
   * Calls the handler. Its promise is raced against cancellation and (2026 era) against a round of input
   * requests, which call `settle` too: a handler ignoring its signal, or waiting for an answer, cannot wedge
   * the request; what settles first is answered. The `Pending` returned never rejects (see `crashed`).
   */
  private call(): string | undefined | Pending {
    let value: unknown;
    try {
      this.taskRun?.started();
      value = this.invoke();
    } catch (error) {
      return this.end(this.failure(error));
    }
    if (!isThenable(value)) return this.end(this.success(value));
    this.running = value;
    const pending = new Pending();
    this.pending = pending;
    try {
      value.then(
        (outcome) => this.settle(outcome),
        (error: unknown) => this.settle(error, true),
      );
    } catch (error) {
      this.settle(error, true); // a thenable whose then() throws
    }
    return pending;
  }

  /** Answers a waiting call with `outcome` (what the handler threw, if `failed`) unless something did first. */
  private settle(outcome: unknown, failed?: true): void {
    const pending = this.pending;
    if (pending?.claim()) pending.resolve(this.settled(outcome, failed));
  }

  /** The response to what settled first: the handler's value (or, `failed`, what it threw), or a signal. */
  private settled(outcome: unknown, failed: true | undefined): string | undefined | Promise<string | undefined> {
    try {
      if (failed) return this.end(this.failure(outcome));
      // The signals are symbols: asked first, so that comparing a handler's value with them is not V8's
      // generic `===` (a handler's value and a symbol are of types its feedback does not join).
      if (typeof outcome === "symbol") {
        if (outcome === CANCELLED) return this.end(undefined);
        if (outcome === INPUT_REQUIRED) return this.afterInput();
      }
      return this.end(this.success(outcome));
    } catch (error) {
      return this.crashed(error);
    }
  }

  /** 2026 era: the handler asked for input; the response is the round's `input_required` result. */
  private async afterInput(): Promise<string | undefined> {
    try {
      let response: string | undefined;
      try {
        response = await this.inputRequired();
      } catch (error) {
        response = this.failure(error);
      }
      return this.end(response);
    } catch (error) {
      return this.crashed(error);
    }
  }

  /**
   * A failure of the runtime itself on the way to a waiting call's response: logged, answered -32603, and the
   * id freed. So the promise `run` returns never rejects, and the connection need not wrap it (that cost a
   * promise and a turn of the microtask queue per call).
   */
  private crashed(error: unknown): string | undefined {
    logInternalError(error);
    this.done = true;
    this.conn.release(this);
    return this.cancelled ? undefined : refuse(this.sink, this.requestId, "internalError");
  }

  /** 2026 era: the request carries answers of earlier rounds (or a malformed attempt at them) to open. */
  private get opensInput(): boolean {
    const params = this.params;
    return params !== undefined && (params.requestState !== undefined || params.inputResponses !== undefined);
  }

  /** The response to what the handler returned; a result that cannot be serialized is a failure. */
  private success(outcome: unknown): string | undefined {
    try {
      return this.succeed(outcome);
    } catch (error) {
      return this.failure(error);
    }
  }

  /** The response to what the handler (or the load) threw; nothing once the request is cancelled. */
  private failure(error: unknown): string | undefined {
    if (this.cancelled) return undefined;
    if (this.modern && error instanceof ClientRequestError && error.code === -32021) {
      return this.error("missingRequiredClientCapability", error.message, error.data);
    }
    return this.fail(error);
  }

  /** The request is over: asks still open fail, and its id may be used again. Passes `response` on. */
  private end(response: string | undefined): string | undefined {
    this.done = true;
    if (this.round || this.usedOutgoing) this.stopInput(new ClientRequestError("The request has ended"), false);
    this.conn.release(this);
    return response;
  }

  /** The error response to this request (its kind told to the sink: it may be built after an `await`). */
  protected error(kind: ErrorKind, message: string, data?: unknown): string {
    return refuse(this.sink, this.requestId, kind, message, data);
  }

  /** Hands a failure the client only sees summarized to the server's `onError`. */
  protected report(error: unknown, kind: "tool" | "resource" | "prompt" | "completion", name: string): void {
    try {
      this.conn.services.options.onError(error, { kind, tool: name, requestId: this.requestId });
    } catch {
      // A failing error reporter must not take the request down with it.
    }
  }

  /** `{"resultType":"complete",<members>,<caching hints>,"_meta":{serverInfo}}` (2026) or `{<members>}` (2025). */
  protected result(members: string, cacheable?: string): string {
    if (!this.modern) return membersResponse(this.requestId, members);
    return this.conn.services.results.modernMembersResponse(this.requestId, cacheable === undefined ? members : `${members},${cacheable}`);
  }

  /** Asks the client for input: a request to the client (2025 era) or an `input_required` round (2026 era). */
  private ask(method: InputMethod, params: Record<string, unknown>, options: InputOptions | undefined): Promise<unknown> {
    const { capability, prefix } = INPUT_METHODS[method];
    const key = options?.key ?? `${prefix}-${++this.inputSeq}`;
    if (!this.live) return Promise.reject(new ClientRequestError("The request has ended"));
    if (!this.asksAllowed) return Promise.reject(new ClientRequestError(`${method} is not available here: this request cannot ask the client for input`));
    const declared = this.clientCapabilities?.[capability];
    if (!isObject(declared)) {
      // 2026 era: unless the handler catches it, this becomes a MissingRequiredClientCapability error (-32021).
      return Promise.reject(
        new ClientRequestError(`The client did not declare the "${capability}" capability, so it cannot answer ${method}`, -32021, {
          requiredCapabilities: { [capability]: {} },
        }),
      );
    }
    if (method === "elicitation/create" && params.mode === "url" && !isObject(declared.url)) {
      return Promise.reject(new ClientRequestError('The client does not support URL elicitation (capability "elicitation.url")'));
    }
    if (this.modern) {
      const answer = this.answer(key, method);
      if (answer !== undefined) return Promise.resolve(answer);
      const viaTask = this.taskRun?.ask(method, key, params, options?.beforeTask === true);
      if (viaTask !== undefined) return viaTask;
      const round = (this.round ??= newRound());
      round.asked.set(key, { method, params });
      // Asks made together (Promise.all) land in one input_required result.
      round.timer ??= setTimeout(() => this.settle(INPUT_REQUIRED), 0);
      return new Promise((_resolve, reject) => round.stops.push(reject));
    }
    if (this.sink.streaming === false) {
      return Promise.reject(new ClientRequestError(`${method} cannot reach the client: this request is answered with a single JSON response`));
    }
    const { id, result } = this.conn.services.outgoing.open(this, { connection: this.conn, ephemeral: this.conn.ephemeral, subject: this.auth?.subject });
    this.usedOutgoing = true;
    this.taskRun?.waiting(result);
    void this.notify(method, params, id);
    return result;
  }

  /** 2026 era: the answer to `key` from this request (asked in the last round) or from earlier rounds. */
  private answer(key: string, method: InputMethod): unknown {
    const sealed = this.sealed;
    if (sealed && Object.hasOwn(sealed.answers, key)) return sealed.answers[key];
    const responses = this.params?.inputResponses;
    if (!isObject(responses) || !Object.hasOwn(responses, key) || (sealed && !sealed.pending.includes(key))) return undefined;
    const value = responses[key];
    if (!isAnswer(method, value)) return undefined; // malformed: asked again
    (this.round ??= newRound()).used[key] = value;
    return value;
  }

  /** Verifies `requestState` and the shape of `inputResponses`; returns what is wrong, if anything. */
  private async openInput(): Promise<string | undefined> {
    const params = this.params as Readonly<Record<string, unknown>>;
    if (params.inputResponses !== undefined && !isObject(params.inputResponses)) return '"inputResponses" must be an object';
    const state = params.requestState;
    if (state === undefined) return undefined;
    if (typeof state !== "string") return '"requestState" must be a string';
    const opened = await this.conn.services.requestState.open(state, this.binding());
    if (typeof opened === "string") return opened;
    this.sealed = opened;
    return undefined;
  }

  /** Ends the round: the requests asked for, and every answer so far sealed into `requestState`. */
  private async inputRequired(): Promise<string | undefined> {
    const round = this.round as Round;
    const reason = new ClientRequestError("Input required: the client will retry with the answers");
    this.controller?.abort(reason);
    const inputRequests: Record<string, unknown> = {};
    for (const [key, request] of round.asked) inputRequests[key] = { method: request.method, params: request.params };
    const answers = { ...this.sealed?.answers, ...round.used };
    const requestState = await this.conn.services.requestState.seal({ answers, pending: [...round.asked.keys()] }, this.binding());
    if (this.cancelled) return undefined;
    return resultResponse(this.requestId, this.conn.services.results.inputRequired(inputRequests, requestState));
  }

  /** The request is over: unanswered asks fail, and (when cancelled) the client learns its requests are moot. */
  private stopInput(reason: unknown, cancelled: boolean): void {
    const round = this.round;
    if (round) {
      if (round.timer) clearTimeout(round.timer);
      round.timer = undefined;
      for (const stop of round.stops.splice(0)) stop(reason);
    }
    if (!this.usedOutgoing) return;
    for (const id of this.conn.services.outgoing.abandon(this, reason)) {
      if (cancelled) void this.notify("notifications/cancelled", { requestId: id, reason: "The request that asked was cancelled" });
    }
  }

  private get live(): boolean {
    return !this.done && !this.cancelled;
  }

  private notify(method: string, params: Record<string, unknown>, id?: string): Promise<void> {
    let line: string;
    try {
      line = JSON.stringify(id === undefined ? { jsonrpc: "2.0", method, params } : { jsonrpc: "2.0", id, method, params });
    } catch {
      return RESOLVED; // what a handler logs may not serialize (a cycle, a bigint): dropped, like any lost notification
    }
    return this.send(line);
  }

  private send(line: string): Promise<void> {
    try {
      return this.sink.send(line) ?? RESOLVED;
    } catch {
      return RESOLVED; // notifications are best effort; the transport reports its own failures
    }
  }
}

function newRound(): Round {
  return { asked: new Map(), used: {}, timer: undefined, stops: [] };
}

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as PromiseLike<unknown>).then === "function";
}

/**
 * Whether a handler's error is meant for the client (its message is shown as it is): a `ToolError` (also one
 * thrown through another copy of this package, a handler importing a different build) or a failed request
 * to the client. Anything else is reported on the server and summarized to the client.
 */
export function isClientError(error: unknown): error is Error {
  return (error instanceof Error && error.name === "ToolError") || error instanceof ToolError || error instanceof ClientRequestError;
}
