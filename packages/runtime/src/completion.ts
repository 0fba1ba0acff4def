/**
 * `completion/complete` for prompt arguments (`ref/prompt`) and resource template variables (`ref/resource`,
 * naming the template string). Fixed values complete without code, filtered by the typed prefix
 * (case-insensitively); `"handler"` completions call the handler module's `complete[name]` with the typed value
 * and `context.arguments`. At most 100 values are sent; `total` and `hasMore` are filled in when the handler
 * does not give them.
 */
import type { CompletionResult } from "./handler.js";
import type { StateBinding } from "./input.js";
import { Invocation, isClientError } from "./invocation.js";
import type { Lazy } from "./lazy.js";
import { clip, describeValue, isObject, MAX_NAME_LENGTH, MAX_URI_LENGTH } from "./protocol.js";
import type { PromptSlot } from "./prompts.js";
import type { AnyHandlerModule, Completions } from "./registry.js";
import type { ResourceRouter } from "./resources.js";
import type { RequestContext } from "./context.js";

/** The most values one answer carries (the spec's limit). */
export const MAX_COMPLETION_VALUES = 100;

/** What is being completed: one argument of a prompt or one variable of a resource template. */
export interface CompletionRequest {
  readonly kind: "prompt" | "resource template";
  readonly name: string;
  readonly completions: Completions;
  readonly module: Lazy<AnyHandlerModule>;
  readonly argument: string;
  readonly value: string;
  readonly context: Record<string, string>;
}

/** Reads `completion/complete` params against the registry; a string says what is wrong with them. */
/** Where completion references are looked up. */
export interface CompletionTargets {
  readonly prompts: ReadonlyMap<string, PromptSlot>;
  readonly resources: Pick<ResourceRouter, "template">;
}

export function completionRequest(registry: CompletionTargets, params: Record<string, unknown> | undefined): CompletionRequest | string {
  const ref = params?.ref;
  const argument = params?.argument;
  if (!isObject(ref)) return 'completion/complete needs a "ref" object';
  if (!isObject(argument) || typeof argument.name !== "string" || typeof argument.value !== "string") {
    return 'completion/complete needs an "argument" with string "name" and "value"';
  }
  if (argument.name.length > MAX_NAME_LENGTH) return `"argument.name" is longer than ${MAX_NAME_LENGTH} characters`;
  if (argument.value.length > MAX_URI_LENGTH) return `"argument.value" is longer than ${MAX_URI_LENGTH} characters`;
  const context = params?.context;
  if (context !== undefined && (!isObject(context) || (context.arguments !== undefined && !isObject(context.arguments)))) {
    return '"context.arguments" must be an object';
  }
  const given = isObject(context) && isObject(context.arguments) ? context.arguments : {};
  // Built with own data properties only: an argument named `__proto__` is an argument like any other.
  const known: Record<string, string> = Object.fromEntries(Object.entries(given).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
  const base = { argument: argument.name, value: argument.value, context: known };

  if (ref.type === "ref/prompt") {
    if (typeof ref.name !== "string") return 'a "ref/prompt" reference needs a string "name"';
    const slot = registry.prompts.get(ref.name);
    if (!slot) return `Unknown prompt: ${clip(ref.name)}`;
    const names = slot.entry.wire.arguments?.map((arg) => arg.name) ?? [];
    if (!names.includes(argument.name)) return `Prompt "${ref.name}" has no argument ${describeValue(argument.name)}`;
    return { kind: "prompt", name: ref.name, completions: slot.entry.completions, module: slot.module, ...base };
  }
  if (ref.type === "ref/resource") {
    if (typeof ref.uri !== "string") return 'a "ref/resource" reference needs a string "uri"';
    if (ref.uri.length > MAX_URI_LENGTH) return `"ref.uri" is longer than ${MAX_URI_LENGTH} characters`;
    const slot = registry.resources.template(ref.uri);
    if (!slot) return `Unknown resource template: ${clip(ref.uri)}`;
    if (!slot.entry.variables.includes(argument.name)) return `Resource template ${ref.uri} has no variable ${describeValue(argument.name)}`;
    return { kind: "resource template", name: slot.entry.name, completions: slot.entry.completions, module: slot.module, ...base };
  }
  return `Unknown reference type ${describeValue(ref.type)}: expected "ref/prompt" or "ref/resource"`;
}

/** One `completion/complete`; it is also the completion handler's `ctx` (which cannot ask the client for input). */
export class Completion extends Invocation {
  private complete: ((...args: unknown[]) => unknown) | undefined;

  constructor(
    ctx: RequestContext,
    private readonly request: CompletionRequest,
  ) {
    super(ctx);
  }

  protected override get asksAllowed(): boolean {
    return false;
  }

  protected prepare(): string | undefined | Promise<string | undefined> {
    const { completions, argument, value, module } = this.request;
    // Names come from the schema and the client: own properties only (`toString`, `__proto__` are names too).
    const how = Object.hasOwn(completions, argument) ? completions[argument] : undefined;
    if (how === undefined) return this.succeed([]);
    if (how !== "handler") {
      const typed = value.toLowerCase();
      return this.succeed(how.filter((candidate) => candidate.toLowerCase().startsWith(typed)));
    }
    return module.get().then((loaded) => {
      const complete = loaded.complete && Object.hasOwn(loaded.complete, argument) ? loaded.complete[argument] : undefined;
      if (typeof complete !== "function") {
        throw new TypeError(`the handler module of ${this.request.kind} "${this.request.name}" exports no complete["${argument}"] function`);
      }
      this.complete = complete;
      return undefined;
    });
  }

  protected invoke(): unknown {
    return (this.complete as (...args: unknown[]) => unknown)(this.request.value, { arguments: this.request.context }, this);
  }

  protected succeed(outcome: unknown): string {
    const { values, total, hasMore } = completionOf(outcome);
    const sent = values.length > MAX_COMPLETION_VALUES ? values.slice(0, MAX_COMPLETION_VALUES) : values;
    const count = total ?? values.length;
    const completion = { values: sent, total: count, hasMore: hasMore ?? count > sent.length };
    return this.result(`"completion":${JSON.stringify(completion)}`);
  }

  /** ToolError messages go to the client as invalid params; anything else is an internal error, reported here. */
  protected fail(error: unknown): string {
    if (isClientError(error)) {
      return this.error("invalidParams", error.message);
    }
    this.report(error, "completion", `${this.request.name}.${this.request.argument}`);
    const kind = error instanceof Error ? error.name : typeof error;
    return this.error("internalError", `Completing "${this.request.argument}" failed with an internal error (${kind}); the details were logged on the server.`);
  }

  protected binding(): StateBinding {
    return { target: `completion:${this.request.name}`, args: {}, subject: this.auth?.subject };
  }
}

function completionOf(value: unknown): { values: string[]; total: number | undefined; hasMore: boolean | undefined } {
  const result = value as CompletionResult;
  const values = Array.isArray(result) ? result : isObject(result) ? result.values : undefined;
  if (!Array.isArray(values) || !values.every((v) => typeof v === "string")) {
    throw new TypeError("the completion handler returned neither an array of strings nor { values: string[] }");
  }
  if (Array.isArray(result)) return { values, total: undefined, hasMore: undefined };
  const total = Number.isSafeInteger(result.total) && (result.total as number) >= 0 ? result.total : undefined;
  return { values, total, hasMore: typeof result.hasMore === "boolean" ? result.hasMore : undefined };
}
