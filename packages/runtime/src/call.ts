/**
 * The `tools/call` pipeline — validate input → handler → shape → validate output → serialize. The handler
 * context, cancellation and input rounds come from `Invocation`. Part of the tool-call runtime (tool-calls.ts),
 * loaded with the first call.
 */
import type { RequestContext } from "./context.js";
import type { CallToolResult, ContentBlock } from "./handler.js";
import type { StateBinding } from "./input.js";
import { Invocation, isClientError } from "./invocation.js";
import { isObject } from "./protocol.js";
import type { Validate } from "./registry.js";
import { resultResponse } from "./errors.js";
import { isStructured } from "./content.js";
import type { LoadedTool, ToolSlot } from "./tool-slot.js";
import { describeValidationErrors } from "./validation.js";

export class ToolCall extends Invocation {
  // `declare`d and assigned in the constructor, like Invocation's fields (the hot path; see there).
  private declare readonly slot: ToolSlot;
  private declare readonly args: Record<string, unknown>;
  private declare tool: LoadedTool | undefined;

  constructor(ctx: RequestContext, slot: ToolSlot, args: Record<string, unknown>) {
    super(ctx);
    this.slot = slot;
    this.args = args;
    this.tool = undefined;
  }

  protected prepare(): string | undefined | Promise<string | undefined> {
    const tool = this.slot.tool.value;
    return tool === undefined ? this.validateLater() : this.validate(tool);
  }

  // The closure is made in a method of its own: one that makes it allocates its scope on every call.
  private validateLater(): Promise<string | undefined> {
    return this.slot.tool.get().then((loaded) => this.validate(loaded));
  }

  private validate(tool: LoadedTool): string | undefined {
    this.tool = tool;
    let problem: string;
    try {
      if (tool.input(this.args)) return undefined;
      problem = describeValidationErrors(tool.input.errors);
    } catch (error) {
      // Arguments nested deeper than a recursive schema's validator can follow (V8's stack: thousands of levels).
      if (!(error instanceof RangeError) || !error.message.includes("call stack")) throw error;
      problem = "/: nested too deeply to be checked";
    }
    return this.finish(errorResult(`Invalid arguments: ${problem}`));
  }

  protected invoke(): unknown {
    return (this.tool as LoadedTool).handler(this.args, this);
  }

  protected succeed(outcome: unknown): string {
    return this.finish(this.shape(this.tool as LoadedTool, outcome));
  }

  /** ToolError messages go to the client as they are; anything else is reported here and summarized there. */
  protected fail(error: unknown): string {
    if (isClientError(error)) return this.finish(errorResult(error.message));
    this.report(error, "tool", this.slot.entry.name);
    const kind = error instanceof Error ? error.name : typeof error;
    const message = `Tool "${this.slot.entry.name}" failed with an internal error (${kind}); the details were logged on the server.`;
    // A task reports a crash as a protocol error (status "failed"); a tool's own error stays a result.
    if (this.taskRun?.adopted === true) return this.error("internalError", message);
    return this.finish(errorResult(message));
  }

  protected binding(): StateBinding {
    return { target: this.slot.entry.name, args: this.args, subject: this.auth?.subject };
  }

  /**
   * The handler contract: structured value (or `structured(value, content)`) for tools with `outputSchema`,
   * else text / blocks / full result, or `structured(object, content)` sent unchecked. A structured result comes back serialized (its members, as `finish`
   * takes them): the value is stringified once and that text used twice, instead of building a result
   * object and stringifying it all.
   */
  private shape(tool: LoadedTool, result: unknown): CallToolResult | string {
    if (this.slot.structured) {
      const own = isStructured(result);
      const value = own ? result.structuredContent : result;
      if (tool.output && !tool.output(value)) return this.invalidOutput(tool.output);
      const text = JSON.stringify(value);
      if (text === undefined) throw new TypeError(`the handler returned ${describe(value)}, not its structured output`);
      // Byte for byte JSON.stringify({ content, structuredContent: value }), content by default the value's JSON.
      // One template each way: every piece joined to a string is another string made.
      if (own) return `"content":${JSON.stringify(result.content)},"structuredContent":${text}`;
      return `"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent":${text}`;
    }
    if (isStructured(result)) {
      // No outputSchema, so nothing to check the value against: sent as it is, when it is what
      // structuredContent may be (a JSON object).
      const value = result.structuredContent;
      if (!isObject(value)) throw new TypeError(`the handler returned structured() with ${describe(value)}; structuredContent must be a JSON object`);
      return `"content":${JSON.stringify(result.content)},"structuredContent":${JSON.stringify(value)}`;
    }
    if (typeof result === "string") return { content: [{ type: "text", text: result }] };
    if (Array.isArray(result)) return { content: result as ContentBlock[] };
    if (isObject(result) && Array.isArray(result.content)) return result as unknown as CallToolResult;
    throw new TypeError(
      `the handler returned ${describe(result)}; expected a string, an array of content blocks or a CallToolResult`,
    );
  }

  /** An output that breaks the tool's own schema never reaches the client as structuredContent. */
  private invalidOutput(output: Validate): CallToolResult {
    const problems = describeValidationErrors(output.errors);
    this.report(new Error(`tool "${this.slot.entry.name}" returned output that does not match its outputSchema: ${problems}`), "tool", this.slot.entry.name);
    return errorResult(`Tool "${this.slot.entry.name}" returned output that does not match its outputSchema: ${problems}`);
  }

  /** `result` is a result object, or the serialized members of one without `_meta` (from `shape`). */
  private finish(result: CallToolResult | string): string {
    if (typeof result === "string") return this.result(result);
    return resultResponse(this.requestId, this.modern ? this.conn.services.results.modern(result) : JSON.stringify(result));
  }
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object without a content array" : typeof value;
}
