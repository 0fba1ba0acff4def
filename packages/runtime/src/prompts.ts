/**
 * `prompts/get`: the arguments are validated (and converted) by the prompt's precompiled validator, then its
 * handler renders the messages: a string becomes one user text message; an array is the messages; an object
 * with `messages` is the whole result.
 */
import { resultResponse } from "./errors.js";
import type { GetPromptResult } from "./handler.js";
import type { StateBinding } from "./input.js";
import { Invocation, isClientError } from "./invocation.js";
import { Lazy } from "./lazy.js";
import { isObject } from "./protocol.js";
import type { AnyHandlerModule, PromptEntry, Validate } from "./registry.js";
import type { RequestContext } from "./context.js";
import { describeValidationErrors } from "./validation.js";

/** The runtime's per-prompt state. */
export interface PromptSlot {
  readonly entry: PromptEntry;
  readonly validators: Lazy<{ args: Validate }>;
  readonly module: Lazy<AnyHandlerModule>;
}

export function promptSlot(entry: PromptEntry): PromptSlot {
  return {
    entry,
    validators: new Lazy(() => entry.validators()),
    module: new Lazy(() =>
      entry.handler().then((module) => {
        if (typeof module.default !== "function") throw new TypeError(`the handler module of prompt "${entry.name}" has no default-exported function`);
        return module;
      }),
    ),
  };
}

/** One `prompts/get`; it is also the handler's `ctx`. */
export class PromptGet extends Invocation {
  private handler: AnyHandlerModule["default"] | undefined;

  constructor(
    ctx: RequestContext,
    private readonly slot: PromptSlot,
    /** A copy of the request's arguments: the validator converts values in place. */
    private readonly args: Record<string, unknown>,
  ) {
    super(ctx);
  }

  protected prepare(): Promise<string | undefined> {
    return Promise.all([this.slot.validators.get(), this.slot.module.get()]).then(([validators, module]) => {
      this.handler = module.default;
      if (validators.args(this.args)) return undefined;
      return this.error(
        "invalidParams",
        `Invalid arguments for prompt "${this.slot.entry.name}": ${describeValidationErrors(validators.args.errors)}`,
      );
    });
  }

  protected invoke(): unknown {
    return (this.handler as AnyHandlerModule["default"])(this.args, this);
  }

  protected succeed(outcome: unknown): string {
    const result = promptResult(outcome);
    if (this.modern) return this.conn.services.results.modernResponse(this.requestId, result);
    return resultResponse(this.requestId, JSON.stringify(result));
  }

  /** ToolError messages go to the client as invalid params; anything else is an internal error, reported here. */
  protected fail(error: unknown): string {
    if (isClientError(error)) {
      return this.error("invalidParams", error.message);
    }
    this.report(error, "prompt", this.slot.entry.name);
    const kind = error instanceof Error ? error.name : typeof error;
    return this.error("internalError", `Prompt "${this.slot.entry.name}" failed with an internal error (${kind}); the details were logged on the server.`);
  }

  protected binding(): StateBinding {
    return { target: `prompt:${this.slot.entry.name}`, args: this.args, subject: this.auth?.subject };
  }
}

/** The handler contract: a string (one user message), messages, or a full result. */
function promptResult(value: unknown): GetPromptResult {
  if (typeof value === "string") return { messages: [{ role: "user", content: { type: "text", text: value } }] };
  if (Array.isArray(value)) return { messages: value as GetPromptResult["messages"] };
  if (isObject(value) && Array.isArray(value.messages)) return value as unknown as GetPromptResult;
  throw new TypeError("the prompt handler returned neither a string, messages nor a { messages } result");
}
