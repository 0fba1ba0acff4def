/**
 * The `tools/call` pipeline — validate input → handler → shape → validate output → serialize — and the
 * `ToolContext` the handler receives. One `ToolCall` object is both, so a call allocates little.
 */
import { resultResponse } from "./errors.js";
import type { CallToolResult, ContentBlock, LogLevel, ToolContext } from "./handler.js";
import { ToolError } from "./handler.js";
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

  /** Aborts `signal` and stops waiting for the handler: a cancelled request gets no response. */
  cancel(reason: unknown): PromiseLike<unknown> | undefined {
    if (!this.done && !this.cancelled) {
      this.cancelled = true;
      this.cancelReason = reason;
      this.controller?.abort(reason);
      this.settle?.(CANCELLED);
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
      const outcome = await this.race(tool.handler(this.args, this));
      if (outcome === CANCELLED) return undefined;
      return this.finish(this.shape(tool, outcome));
    } catch (error) {
      if (this.cancelled) return undefined;
      return this.finish(this.failure(error));
    } finally {
      this.done = true;
      this.conn.release(this);
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

  /** The handler contract: structured value for tools with `outputSchema`, else text / blocks / full result. */
  private shape(tool: LoadedTool, value: unknown): CallToolResult {
    if (this.slot.structured) {
      if (tool.output && !tool.output(value)) return this.invalidOutput(tool.output);
      const text = JSON.stringify(value);
      if (text === undefined) throw new TypeError(`the handler returned ${describe(value)}, not its structured output`);
      return { content: [{ type: "text", text }], structuredContent: value as Record<string, unknown> };
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
    if (isToolError(error)) return errorResult(error.message);
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

  private finish(result: CallToolResult): string {
    return resultResponse(this.requestId, this.modern ? this.conn.server.modernResult(result) : JSON.stringify(result));
  }

  private notify(method: string, params: Record<string, unknown>): Promise<void> {
    try {
      return this.sink.send(JSON.stringify({ jsonrpc: "2.0", method, params })) ?? RESOLVED;
    } catch {
      return RESOLVED; // notifications are best effort; the transport reports its own failures
    }
  }
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
