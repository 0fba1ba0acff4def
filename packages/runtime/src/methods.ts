/**
 * The method table: every request method the core answers, the eras it exists in, and its handler. A
 * connection checks the message and picks the era; the table does the rest. Handler-backed methods
 * (`tools/call`, `resources/read`, `prompts/get`, `completion/complete`) start an `Invocation`, from a runtime
 * loaded with the first of them: the tool-call runtime (tool-calls.ts) or the primitives' (primitives.ts).
 */
import { LastLookup } from "./cache.js";
import type { Channel, Holder, Reply, RequestContext } from "./context.js";
import type { Core, ListPages, ToolCalls } from "./core.js";
import type { Era } from "./era.js";
import { refuse, resultResponse, type FailureListener } from "./errors.js";
import type { Invocation, InvocationHost } from "./invocation.js";
import type { Lazy } from "./lazy.js";
import type { Primitives } from "./primitives.js";
import { clip, isObject, LOG_LEVEL_RANK, logLevelRank, MAX_URI_LENGTH, type RequestId } from "./protocol.js";
import type { SessionTarget } from "./subscriptions.js";

/** What the table's handlers use of the connection a request arrived on. */
export interface MethodHost extends Channel, SessionTarget, InvocationHost, Holder {
  readonly services: Core;
  /** The same, once the resources / prompts / completion runtime is loaded. */
  startPrimitive(ctx: RequestContext, invocation: (primitives: Primitives) => Invocation | string): Reply;
  /** Answers `ctx` with `run` once `runtime` is loaded; the request is in flight meanwhile (see `Connection`). */
  afterLoad<T>(runtime: Lazy<T>, what: string, ctx: RequestContext, run: (loaded: T) => Reply): Reply;
  /** 2026 era: `subscriptions/listen`, held open until cancelled or the connection closes. */
  listen(ctx: RequestContext): Reply;
  /** 2025 era: `logging/setLevel`. */
  setLogThreshold(rank: number): void;
}

export interface Method {
  readonly eras: Readonly<Partial<Record<Era, true>>>;
  readonly handler: (host: MethodHost, ctx: RequestContext) => Reply;
}

const BOTH = { legacy: true, modern: true } as const;
const LEGACY = { legacy: true } as const;
const MODERN = { modern: true } as const;

/** A handler that needs the tool-call runtime: called at once when it is loaded, else once it is. */
function withToolCalls(handler: (host: MethodHost, ctx: RequestContext, calls: ToolCalls) => Reply): Method["handler"] {
  return (host, ctx) => {
    const { toolCalls } = host.services;
    const calls = toolCalls.value;
    if (calls !== undefined) return handler(host, ctx, calls);
    return toolCallsLater(host, ctx, handler);
  };
}

// The closure is made in a function of its own: a function that makes one allocates its scope on every call.
function toolCallsLater(host: MethodHost, ctx: RequestContext, handler: (host: MethodHost, ctx: RequestContext, calls: ToolCalls) => Reply): Reply {
  return host.afterLoad(host.services.toolCalls, "the tool-call runtime", ctx, (loaded) => handler(host, ctx, loaded));
}

const taskRequest = withToolCalls((host, ctx, calls) => calls.taskRequest(host.services.tasks, host, ctx));

const list: Method["handler"] = (host, { id, method, params, era, sink }) => {
  const pages = host.services.pages[method as keyof ListPages];
  if (!pages) return notFound(sink, id, method);
  const cursor = params?.cursor;
  const result = cursor === undefined || typeof cursor === "string" ? pages.result(cursor, era) : undefined;
  return result === undefined ? refuse(sink, id, "invalidParams", "Invalid cursor") : resultResponse(id, result);
};

const subscribe: Method["handler"] = (host, { id, method, params, sink }) => {
  const { pages, subscriptions } = host.services;
  if (!pages["resources/list"]) return notFound(sink, id, method);
  const uri = params?.uri;
  if (typeof uri !== "string") return refuse(sink, id, "invalidParams", `Invalid params: ${method} needs a string "uri"`);
  if (uri.length > MAX_URI_LENGTH) return uriTooLong(sink, id);
  if (method === "resources/unsubscribe") {
    subscriptions.unsubscribe(host, uri);
    return resultResponse(id, "{}");
  }
  const problem = subscriptions.subscribe(host, uri);
  return problem === undefined ? resultResponse(id, "{}") : refuse(sink, id, "invalidRequest", `Invalid Request: ${problem}`);
};

/** The table. The hot method first: it is also the first a reader looks for. */
export const METHODS: ReadonlyMap<string, Method> = new Map<string, Method>([
  [
    "tools/call",
    {
      eras: BOTH,
      handler: withToolCalls((host, ctx, calls) => {
        const named = nameAndArguments(ctx);
        if (typeof named === "string") return named;
        const slot = host.services.toolNamed.get(named.name);
        if (!slot) return refuse(ctx.sink, ctx.id, "invalidParams", `Unknown tool: ${clip(named.name)}`);
        // A tool with task support: the task runner decides whether this call becomes a task (tasks/).
        if (slot.taskSupport !== "forbidden") return calls.taskCall(host.services.tasks, host, ctx, slot, named.args);
        // 2025-11-25: a tool without task support must not be asked to run as one.
        if (ctx.era === "legacy" && isObject(ctx.params?.task)) {
          return refuse(ctx.sink, ctx.id, "methodNotFound", `Tool "${clip(named.name)}" does not run as a task (its execution.taskSupport is "forbidden"): call it without params.task`);
        }
        return host.start(ctx, new calls.ToolCall(ctx, slot, named.args));
      }),
    },
  ],
  ["ping", { eras: LEGACY, handler: (_host, { id }) => resultResponse(id, "{}") }],
  ["server/discover", { eras: MODERN, handler: (host, { id }) => resultResponse(id, host.services.results.discover()) }],
  ["tools/list", { eras: BOTH, handler: list }],
  ["resources/list", { eras: BOTH, handler: list }],
  ["resources/templates/list", { eras: BOTH, handler: list }],
  ["prompts/list", { eras: BOTH, handler: list }],
  [
    "resources/read",
    {
      eras: BOTH,
      handler: (host, ctx) => {
        const { id, params, sink } = ctx;
        if (!host.services.kinds.resources) return notFound(sink, id, ctx.method);
        const uri = params?.uri;
        if (typeof uri !== "string") return refuse(sink, id, "invalidParams", 'Invalid params: resources/read needs a string "uri"');
        if (uri.length > MAX_URI_LENGTH) return uriTooLong(sink, id);
        return host.startPrimitive(ctx, (primitives) => primitives.read(ctx, uri));
      },
    },
  ],
  [
    "prompts/get",
    {
      eras: BOTH,
      handler: (host, ctx) => {
        if (!host.services.kinds.prompts) return notFound(ctx.sink, ctx.id, ctx.method);
        const named = nameAndArguments(ctx);
        if (typeof named === "string") return named;
        return host.startPrimitive(ctx, (primitives) => primitives.get(ctx, named.name, named.args));
      },
    },
  ],
  [
    "completion/complete",
    {
      eras: BOTH,
      handler: (host, ctx) => {
        if (!host.services.kinds.completions) return notFound(ctx.sink, ctx.id, ctx.method);
        return host.startPrimitive(ctx, (primitives) => primitives.complete(ctx));
      },
    },
  ],
  ["resources/subscribe", { eras: LEGACY, handler: subscribe }],
  ["resources/unsubscribe", { eras: LEGACY, handler: subscribe }],
  [
    "logging/setLevel",
    {
      eras: LEGACY,
      handler: (host, { id, params, sink }) => {
        const rank = logLevelRank(params?.level);
        if (rank === undefined) return refuse(sink, id, "invalidParams", `Invalid params: level must be one of ${Object.keys(LOG_LEVEL_RANK).join(", ")}`);
        host.setLogThreshold(rank);
        return resultResponse(id, "{}");
      },
    },
  ],
  ["subscriptions/listen", { eras: MODERN, handler: (host, ctx) => host.listen(ctx) }],
  // Tasks (tasks/tasks.ts): the 2025-11-25 methods and the 2026-07-28 extension's.
  ["tasks/get", { eras: BOTH, handler: taskRequest }],
  ["tasks/cancel", { eras: BOTH, handler: taskRequest }],
  ["tasks/result", { eras: LEGACY, handler: taskRequest }],
  ["tasks/list", { eras: LEGACY, handler: taskRequest }],
  ["tasks/update", { eras: MODERN, handler: taskRequest }],
]);

/** `METHODS`, the last method remembered: a client sends the same one request after request. */
const METHOD_LOOKUP = new LastLookup((method: string) => METHODS.get(method));

/** Answers `ctx` from the table, or -32601 when its method does not exist in its era. */
export function answer(host: MethodHost, ctx: RequestContext): Reply {
  const method = METHOD_LOOKUP.get(ctx.method);
  if (method === undefined || method.eras[ctx.era] !== true) return refuse(ctx.sink, ctx.id, "methodNotFound", `Method not found: ${clip(ctx.method)}`);
  return method.handler(host, ctx);
}

/** The `name` and `arguments` (default `{}`) of a `tools/call` or `prompts/get`, or the error answer. */
function nameAndArguments({ id, method, params, sink }: RequestContext): { name: string; args: Record<string, unknown> } | string {
  const name = params?.name;
  if (typeof name !== "string") return refuse(sink, id, "invalidParams", `Invalid params: ${method} needs a string "name"`);
  const args = params?.arguments ?? {};
  if (!isObject(args)) return refuse(sink, id, "invalidParams", 'Invalid params: "arguments" must be an object');
  return { name, args };
}

function notFound(sink: FailureListener, id: RequestId, method: string): string {
  return refuse(sink, id, "methodNotFound", `Method not found: ${method}`);
}

function uriTooLong(sink: FailureListener, id: RequestId): string {
  return refuse(sink, id, "invalidParams", `Invalid params: "uri" is longer than ${MAX_URI_LENGTH} characters`);
}
