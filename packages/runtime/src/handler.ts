/**
 * The handler contract: what a user's `src/handlers/<tool>.ts` default-exports and what it receives.
 * Keep this file stable; every generated handler stub and every user handler compiles against it.
 */

/** Log levels of the MCP logging utility (RFC 5424 severities). */
export type LogLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";

/** Content annotations (audience, priority, lastModified). */
export interface ContentAnnotations {
  audience?: ("user" | "assistant")[];
  priority?: number;
  lastModified?: string;
}

export interface TextContent {
  type: "text";
  text: string;
  annotations?: ContentAnnotations;
  _meta?: Record<string, unknown>;
}

export interface ImageContent {
  type: "image";
  data: string;
  mimeType: string;
  annotations?: ContentAnnotations;
  _meta?: Record<string, unknown>;
}

export interface AudioContent {
  type: "audio";
  data: string;
  mimeType: string;
  annotations?: ContentAnnotations;
  _meta?: Record<string, unknown>;
}

/** What a resource, a resource template and a resource link describe alike. */
export interface ResourceFields {
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  _meta?: Record<string, unknown>;
}

export interface ResourceLink extends ResourceFields {
  type: "resource_link";
  uri: string;
  size?: number;
  annotations?: ContentAnnotations;
}

export type ResourceContents =
  | { uri: string; mimeType?: string; text: string; _meta?: Record<string, unknown> }
  | { uri: string; mimeType?: string; blob: string; _meta?: Record<string, unknown> };

export interface EmbeddedResource {
  type: "resource";
  resource: ResourceContents;
  annotations?: ContentAnnotations;
  _meta?: Record<string, unknown>;
}

export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/** A complete `tools/call` result, for handlers that need full control. */
export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** Who made a request, as the HTTP transport's `authenticate` hook established it. */
export interface AuthInfo {
  /** The bearer token (or other credential) the request carried. */
  readonly token?: string;
  /** The authenticated principal; a 2025-era HTTP session stays bound to the principal that created it. */
  readonly subject?: string;
  readonly clientId?: string;
  readonly scopes?: readonly string[];
  /** Seconds since the epoch. */
  readonly expiresAt?: number;
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** `elicitation/create` parameters: a form (`requestedSchema`, flat primitive properties) or a URL to open. */
export type ElicitParams =
  | { mode?: "form"; message: string; requestedSchema: Record<string, unknown>; _meta?: Record<string, unknown> }
  | { mode: "url"; message: string; url: string; elicitationId: string; _meta?: Record<string, unknown> };

/** The user's answer to an elicitation. `content` holds the form values when `action` is `accept`. */
export interface ElicitResult {
  action: "accept" | "decline" | "cancel";
  content?: Record<string, string | number | boolean | string[]>;
  _meta?: Record<string, unknown>;
}

/** One message of a sampling conversation. */
export interface SamplingMessage {
  role: "user" | "assistant";
  content: Record<string, unknown> | Record<string, unknown>[];
  _meta?: Record<string, unknown>;
}

/** `sampling/createMessage` parameters. */
export interface SampleParams {
  messages: SamplingMessage[];
  maxTokens: number;
  systemPrompt?: string;
  modelPreferences?: Record<string, unknown>;
  includeContext?: "none" | "thisServer" | "allServers";
  temperature?: number;
  stopSequences?: string[];
  metadata?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The client's completion. */
export interface SampleResult {
  role: "user" | "assistant";
  content: Record<string, unknown> | Record<string, unknown>[];
  model: string;
  stopReason?: string;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The client's roots. */
export interface RootsResult {
  roots: { uri: string; name?: string; _meta?: Record<string, unknown> }[];
  _meta?: Record<string, unknown>;
}

export interface InputOptions {
  /**
   * 2026 era: the key of this request in the `inputRequests` map (default: `elicit-1`, `sample-2`, … by call
   * order). Keys must be stable from one round to the next: the handler runs again on every retry.
   */
  key?: string;
  /**
   * 2026 era, a tool with task support: ask this before the call becomes a task. Such asks are answered
   * through `input_required` rounds like any 2026 ask; the task is created on the round that has them all.
   * Other asks of a call that may run as a task make it one, and wait for the client's `tasks/update`.
   */
  beforeTask?: boolean;
}

/**
 * Thrown into a handler by `ctx.elicit()`, `ctx.sample()` and `ctx.listRoots()` when the client cannot or did
 * not answer: it lacks the capability, it answered with an error, or the transport cannot carry the request.
 */
export class ClientRequestError extends Error {
  override name = "ClientRequestError";
  constructor(
    message: string,
    readonly code?: number,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * What a handler learns about, and can do within, the request it serves. Every kind of handler gets it: tools,
 * resources (with `uri`), prompts and completions (which cannot ask the client for input).
 */
export interface ToolContext {
  /** Aborted when the client cancels the request, the connection closes or the server shuts down. */
  readonly signal: AbortSignal;
  /** The JSON-RPC id of the request (a `bigint` for an integer beyond 2^53, kept exact). */
  readonly requestId: string | number | bigint;
  /** The protocol version in force for this request. */
  readonly protocolVersion: string;
  /**
   * The request's `params._meta`, if any. Read-only: over stdio, a 2026-era envelope the client repeats is
   * one frozen object shared by its requests.
   */
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  /** The client's `clientInfo` (from `initialize` or, in the 2026 era, the request's `_meta`). */
  readonly clientInfo: Readonly<{ name: string; version: string }> | undefined;
  /** The client's declared capabilities. */
  readonly clientCapabilities: Readonly<Record<string, unknown>> | undefined;
  /** The caller's identity when the transport authenticates requests (HTTP with an `authenticate` hook). */
  readonly auth: AuthInfo | undefined;
  /**
   * Reports progress; a no-op when the request carried no `progressToken`. `progress` must increase. For
   * partial results of a long-running tool, say what is done so far in `message` as the work advances
   * (`await ctx.progress(40, 100, "indexed 40 of 100 files; 3 matches so far")`) and return the whole result
   * at the end; awaiting it lets a slow client hold the handler back instead of messages piling up.
   */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** Sends a log message to the client; dropped below the client's chosen level. */
  log(level: LogLevel, data: unknown, logger?: string): Promise<void>;
  /**
   * Asks the user for input through the client. 2025 era: an `elicitation/create` request to the client on
   * this request's stream. 2026 era: the call ends with an `input_required` result and the handler runs again
   * when the client retries with the answer (answers of earlier rounds are kept in the signed `requestState`),
   * so code before the last `elicit` may run more than once. Rejects with `ClientRequestError` when the
   * client did not declare the `elicitation` capability.
   */
  elicit(params: ElicitParams, options?: InputOptions): Promise<ElicitResult>;
  /** Asks the client's model for a completion (`sampling/createMessage`); same rules as `elicit`. */
  sample(params: SampleParams, options?: InputOptions): Promise<SampleResult>;
  /** Asks the client for its roots (`roots/list`); same rules as `elicit`. */
  listRoots(options?: InputOptions): Promise<RootsResult>;
  /**
   * Tells subscribed clients that the resource at `uri` changed (`notifications/resources/updated`): 2025-era
   * sessions that sent `resources/subscribe` for it, 2026-era `subscriptions/listen` streams that list it. The
   * same as `server.resourceUpdated(uri)`.
   */
  resourceUpdated(uri: string): void;
  /**
   * Tells clients that a list changed (`notifications/{tools,resources,prompts}/list_changed`): every 2025-era
   * session, and the 2026-era listen streams that opted in. The same as `server.listChanged(kind)`.
   */
  listChanged(kind: ListKind): void;
}

/** The lists whose changes a server can announce. */
export type ListKind = "tools" | "resources" | "prompts";

/**
 * An error whose message the client (and the model behind it) is meant to read: thrown from a handler it
 * becomes an `isError: true` result carrying the message. Any other thrown error becomes an `isError`
 * result too, without its stack.
 */
export class ToolError extends Error {
  override name = "ToolError";
}

/** What a handler of a tool without `outputSchema` may return. */
export type UnstructuredResult = string | ContentBlock[] | CallToolResult;

declare const structuredBrand: unique symbol;

/**
 * A structured value together with the content blocks the handler wants sent next to it, made by
 * `structured(value, content)`. Only that helper makes one, so a plain value that happens to have
 * `structuredContent` or `content` members is never mistaken for it.
 */
export interface StructuredResult<Output> {
  readonly structuredContent: Output;
  readonly content: ContentBlock[];
  readonly [structuredBrand]: true;
}

/** What a handler of a tool with an `outputSchema` may return: the value, or the value with its own content. */
export type StructuredOutput<Output> = Output | StructuredResult<Output>;

/**
 * A tool handler. `Input` is the generated input type (already validated). With an `outputSchema`,
 * `Output` is the generated output type and the handler returns that structured value (sent with its
 * JSON as text), or `structured(value, content)` to choose the content itself; without one, `Output` is
 * `undefined` and the handler returns text, content blocks or a full result.
 */
export type ToolHandler<Input, Output = undefined> = (
  input: Input,
  ctx: ToolContext,
) => Promise<[Output] extends [undefined] ? UnstructuredResult : StructuredOutput<Output>>;

/**
 * A complete `resources/read` result, for handlers that need full control. In the 2026 era `ttlMs` and
 * `cacheScope` tell clients how long they may cache it (default for handler results: `0`, `"private"`).
 */
export interface ReadResourceResult {
  contents: ResourceContents[];
  ttlMs?: number;
  cacheScope?: "public" | "private";
  _meta?: Record<string, unknown>;
}

/**
 * What a resource handler returns: text or bytes (sent base64; both with the resource's `mimeType`), the
 * contents themselves, or a full result.
 */
export type ResourceResult = string | Uint8Array | ResourceContents | ResourceContents[] | ReadResourceResult;

/** Reads a static resource declared without inline contents. `ctx.uri` is the resource's URI. */
export type ResourceHandler = (ctx: ToolContext & { readonly uri: string }) => Promise<ResourceResult>;

/**
 * Reads a resource of a URI template. `variables` are the values extracted from the URI, validated and
 * converted to the types their schemas declare (strings unless declared otherwise).
 */
export type ResourceTemplateHandler<Variables> = (
  variables: Variables,
  ctx: ToolContext & { readonly uri: string },
) => Promise<ResourceResult>;

export type Role = "user" | "assistant";

export interface PromptMessage {
  role: Role;
  content: ContentBlock;
}

export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: Record<string, unknown>;
}

/** Renders a prompt: a string becomes one user message; or messages; or the full result. */
export type PromptHandler<Arguments> = (args: Arguments, ctx: ToolContext) => Promise<string | PromptMessage[] | GetPromptResult>;

/** What a completion handler returns: up to 100 values are sent, with `total` / `hasMore` computed if absent. */
export type CompletionResult = string[] | { values: string[]; total?: number; hasMore?: boolean };

/**
 * Completes one variable or argument. `value` is what the user typed so far; `context.arguments` holds the
 * values already chosen for the others.
 */
export type CompletionHandler<Arguments> = (
  value: string,
  context: { arguments: Partial<Record<keyof Arguments & string, string>> },
  ctx: ToolContext,
) => Promise<CompletionResult>;
