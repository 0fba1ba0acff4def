/**
 * The `tools/call` pipeline — validate input → handler → shape → validate output → serialize — and the
 * `ToolContext` the handler receives. One `ToolCall` object is both, so a call allocates little.
 */
import { errorResponse, resultResponse } from "./errors.js";
import type {
  AuthInfo,
  CallToolResult,
  ContentBlock,
  ElicitParams,
  ElicitResult,
  InputOptions,
  LogLevel,
  RootsResult,
  SampleParams,
  SampleResult,
  ToolContext,
} from "./handler.js";
import { ClientRequestError, ToolError } from "./handler.js";
import { INPUT_METHODS, isAnswer, type InputMethod, type SealedInput, type StateBinding } from "./input.js";
import {
  isObject,
  logLevelRank,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_LOG_LEVEL,
  type RequestId,
} from "./protocol.js";
import type { Validate } from "./registry.js";
import type { Connection, LoadedTool, Sink, ToolSlot } from "./server.js";
import { describeValidationErrors } from "./validation.js";

const RESOLVED: Promise<void> = Promise.resolve();
/** What the race against cancellation resolves to when the client cancelled first. */
const CANCELLED = Symbol("cancelled");
/** … and when the handler asked for input the 2026-era request does not carry yet. */
const INPUT_REQUIRED = Symbol("input required");

/** 2026 era: the input a handler asked for in this round, and the answers it used. */
interface Round {
  readonly asked: Map<string, { method: InputMethod; params: Record<string, unknown> }>;
  readonly used: Record<string, unknown>;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Rejects the promises of unanswered asks once the call has ended. */
  readonly stops: ((reason: unknown) => void)[];
}

export class ToolCall implements ToolContext {
  /** Created on first use of `signal`: an AbortController costs more than the rest of a fast call. */
  private controller: AbortController | undefined;
  private cancelled = false;
  private cancelReason: unknown;
  private readonly progressToken: string | number | undefined;
  /** 2026 era: the request's own log threshold (no `_meta` level, no log messages). */
  private readonly logThreshold: number | undefined;
  private lastProgress = -Infinity;
  private done = false;
  private settle: ((outcome: unknown) => void) | undefined;
  /** 2026 era: answers of earlier rounds, from a verified `requestState`. */
  private sealed: SealedInput | undefined;
  private round: Round | undefined;
  private inputSeq = 0;
  /** The handler's own promise, awaited (within a grace period) when the connection shuts down. */
  running: PromiseLike<unknown> | undefined;

  constructor(
    private readonly conn: Connection,
    private readonly slot: ToolSlot,
    readonly requestId: RequestId,
    private readonly args: Record<string, unknown>,
    readonly meta: Readonly<Record<string, unknown>> | undefined,
    readonly protocolVersion: string,
    private readonly modern: boolean,
    private readonly sink: Sink,
    /** 2026 era: the request's params (`inputResponses`, `requestState`). */
    private readonly params?: Readonly<Record<string, unknown>>,
  ) {
    const token = meta?.progressToken;
    this.progressToken = typeof token === "string" || typeof token === "number" ? token : undefined;
    this.logThreshold = modern ? logLevelRank(meta?.[META_LOG_LEVEL]) : undefined;
  }

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
    if (token === undefined || !this.live || !Number.isFinite(progress) || !(progress > this.lastProgress)) return RESOLVED;
    this.lastProgress = progress;
    const params: Record<string, unknown> = { progressToken: token, progress };
    if (total !== undefined && Number.isFinite(total)) params.total = total;
    if (message !== undefined) params.message = String(message);
    return this.notify("notifications/progress", params);
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

  /** Aborts `signal` and stops waiting for the handler: a cancelled request gets no response. */
  cancel(reason: unknown): PromiseLike<unknown> | undefined {
    if (!this.done && !this.cancelled) {
      this.cancelled = true;
      this.cancelReason = reason;
      this.controller?.abort(reason);
      this.settle?.(CANCELLED);
      this.stopInput(reason, true);
      this.conn.release(this);
    }
    return this.running;
  }

  /** Runs the pipeline; resolves to the serialized response, or `undefined` when cancelled. */
  async run(): Promise<string | undefined> {
    try {
      const tool = this.slot.loaded ?? (await this.conn.server.load(this.slot));
      if (this.cancelled) return undefined;
      if (!tool.input(this.args)) {
        return this.finish(errorResult(`Invalid arguments: ${describeValidationErrors(tool.input.errors)}`));
      }
      if (this.params !== undefined && (this.params.requestState !== undefined || this.params.inputResponses !== undefined)) {
        const problem = await this.openInput();
        if (problem !== undefined) return errorResponse(this.requestId, "invalidParams", `Invalid params: ${problem}`);
        if (this.cancelled) return undefined;
      }
      const outcome = await this.race(tool.handler(this.args, this));
      if (outcome === CANCELLED) return undefined;
      if (outcome === INPUT_REQUIRED) return await this.inputRequired();
      return this.finish(this.shape(tool, outcome));
    } catch (error) {
      if (this.cancelled) return undefined;
      if (this.modern && error instanceof ClientRequestError && error.code === -32021) {
        return errorResponse(this.requestId, "missingRequiredClientCapability", error.message, error.data);
      }
      return this.finish(this.failure(error));
    } finally {
      this.done = true;
      if (this.round || this.usedOutgoing) this.stopInput(new ClientRequestError("The request has ended"), false);
      this.conn.release(this);
    }
  }

  /** Asks the client for input: a request to the client (2025 era) or an `input_required` round (2026 era). */
  private ask(method: InputMethod, params: Record<string, unknown>, options: InputOptions | undefined): Promise<unknown> {
    const { capability, prefix } = INPUT_METHODS[method];
    const key = options?.key ?? `${prefix}-${++this.inputSeq}`;
    if (!this.live) return Promise.reject(new ClientRequestError("The request has ended"));
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
      const round = (this.round ??= newRound());
      round.asked.set(key, { method, params });
      // Asks made together (Promise.all) land in one input_required result.
      round.timer ??= setTimeout(() => this.settle?.(INPUT_REQUIRED), 0);
      return new Promise((_resolve, reject) => round.stops.push(reject));
    }
    if (this.sink.streaming === false) {
      return Promise.reject(new ClientRequestError(`${method} cannot reach the client: this request is answered with a single JSON response`));
    }
    const { id, result } = this.conn.server.outgoing.open(this);
    this.usedOutgoing = true;
    void this.notify(method, params, id);
    return result;
  }

  private usedOutgoing = false;

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
    const opened = await this.conn.server.requestState.open(state, this.binding());
    if (typeof opened === "string") return opened;
    this.sealed = opened;
    return undefined;
  }

  private binding(): StateBinding {
    return { tool: this.slot.entry.name, args: this.args, subject: this.auth?.subject };
  }

  /** Ends the round: the requests asked for, and every answer so far sealed into `requestState`. */
  private async inputRequired(): Promise<string | undefined> {
    const round = this.round as Round;
    const reason = new ClientRequestError("Input required: the client will retry with the answers");
    this.controller?.abort(reason);
    const inputRequests: Record<string, unknown> = {};
    for (const [key, request] of round.asked) inputRequests[key] = { method: request.method, params: request.params };
    const answers = { ...this.sealed?.answers, ...round.used };
    const requestState = await this.conn.server.requestState.seal({ answers, pending: [...round.asked.keys()] }, this.binding());
    if (this.cancelled) return undefined;
    return resultResponse(this.requestId, this.conn.server.inputRequiredResult(inputRequests, requestState));
  }

  /** The call is over: unanswered asks fail, and (when cancelled) the client learns its requests are moot. */
  private stopInput(reason: unknown, cancelled: boolean): void {
    const round = this.round;
    if (round) {
      if (round.timer) clearTimeout(round.timer);
      round.timer = undefined;
      for (const stop of round.stops.splice(0)) stop(reason);
    }
    if (!this.usedOutgoing) return;
    for (const id of this.conn.server.outgoing.abandon(this, reason)) {
      if (cancelled) void this.notify("notifications/cancelled", { requestId: id, reason: "The request that asked was cancelled" });
    }
  }

  private get live(): boolean {
    return !this.done && !this.cancelled;
  }

  /** Waits for the handler unless the request is cancelled first; a handler ignoring its signal cannot wedge us. */
  private race(value: unknown): unknown {
    if (!isThenable(value)) return value;
    this.running = value;
    return new Promise((resolve, reject) => {
      this.settle = resolve;
      value.then(resolve, reject);
    });
  }

  /**
   * The handler contract: structured value for tools with `outputSchema`, else text / blocks / full result.
   * A structured result comes back serialized (its members, as `finish` takes them): the value is
   * stringified once and that text used twice, instead of building a result object and stringifying it all.
   */
  private shape(tool: LoadedTool, value: unknown): CallToolResult | string {
    if (this.slot.structured) {
      if (tool.output && !tool.output(value)) return this.invalidOutput(tool.output);
      const text = JSON.stringify(value);
      if (text === undefined) throw new TypeError(`the handler returned ${describe(value)}, not its structured output`);
      // Byte for byte JSON.stringify({ content: [{ type: "text", text }], structuredContent: value }).
      return `"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}`;
    }
    if (typeof value === "string") return { content: [{ type: "text", text: value }] };
    if (Array.isArray(value)) return { content: value as ContentBlock[] };
    if (isObject(value) && Array.isArray(value.content)) return value as unknown as CallToolResult;
    throw new TypeError(
      `the handler returned ${describe(value)}; expected a string, an array of content blocks or a CallToolResult`,
    );
  }

  /** An output that breaks the tool's own schema never reaches the client as structuredContent. */
  private invalidOutput(output: Validate): CallToolResult {
    const problems = describeValidationErrors(output.errors);
    this.report(new Error(`tool "${this.slot.entry.name}" returned output that does not match its outputSchema: ${problems}`));
    return errorResult(`Tool "${this.slot.entry.name}" returned output that does not match its outputSchema: ${problems}`);
  }

  /** ToolError messages go to the client as they are; anything else is reported here and summarized there. */
  private failure(error: unknown): CallToolResult {
    if (isToolError(error) || error instanceof ClientRequestError) return errorResult(error.message);
    this.report(error);
    const kind = error instanceof Error ? error.name : typeof error;
    return errorResult(`Tool "${this.slot.entry.name}" failed with an internal error (${kind}); the details were logged on the server.`);
  }

  private report(error: unknown): void {
    try {
      this.conn.server.options.onError(error, { tool: this.slot.entry.name, requestId: this.requestId });
    } catch {
      // A failing error reporter must not take the call down with it.
    }
  }

  /** `result` is a result object, or the serialized members of one without `_meta` (from `shape`). */
  private finish(result: CallToolResult | string): string {
    if (typeof result === "string") return resultResponse(this.requestId, this.modern ? this.conn.server.modernResultOf(result) : `{${result}}`);
    return resultResponse(this.requestId, this.modern ? this.conn.server.modernResult(result) : JSON.stringify(result));
  }

  private notify(method: string, params: Record<string, unknown>, id?: string): Promise<void> {
    try {
      return this.sink.send(JSON.stringify(id === undefined ? { jsonrpc: "2.0", method, params } : { jsonrpc: "2.0", id, method, params })) ?? RESOLVED;
    } catch {
      return RESOLVED; // notifications are best effort; the transport reports its own failures
    }
  }
}

function newRound(): Round {
  return { asked: new Map(), used: {}, timer: undefined, stops: [] };
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/** Recognizes ToolErrors thrown through another copy of this package (a handler importing a different build). */
function isToolError(error: unknown): error is Error {
  return error instanceof ToolError || (error instanceof Error && error.name === "ToolError");
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as PromiseLike<unknown>).then === "function";
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object without a content array" : typeof value;
}
