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

export interface ResourceLink {
  type: "resource_link";
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: ContentAnnotations;
  _meta?: Record<string, unknown>;
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

/** What a handler learns about, and can do within, the request it serves. */
export interface ToolContext {
  /** Aborted when the client cancels the request, the connection closes or the server shuts down. */
  readonly signal: AbortSignal;
  /** The JSON-RPC id of the request. */
  readonly requestId: string | number;
  /** The protocol version in force for this request. */
  readonly protocolVersion: string;
  /** The request's `params._meta`, if any. */
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  /** The client's `clientInfo` (from `initialize` or, in the 2026 era, the request's `_meta`). */
  readonly clientInfo: Readonly<{ name: string; version: string }> | undefined;
  /** The client's declared capabilities. */
  readonly clientCapabilities: Readonly<Record<string, unknown>> | undefined;
  /** Reports progress; a no-op when the request carried no `progressToken`. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** Sends a log message to the client; dropped below the client's chosen level. */
  log(level: LogLevel, data: unknown, logger?: string): Promise<void>;
}

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

/**
 * A tool handler. `Input` is the generated input type (already validated). With an `outputSchema`,
 * `Output` is the generated output type and the handler returns that structured value; without one,
 * `Output` is `undefined` and the handler returns text, content blocks or a full result.
 */
export type ToolHandler<Input, Output = undefined> = (
  input: Input,
  ctx: ToolContext,
) => Promise<[Output] extends [undefined] ? UnstructuredResult : Output>;

/** What a resource handler returns: text, bytes (sent base64), or the contents themselves. */
export type ResourceResult = string | Uint8Array | ResourceContents | ResourceContents[] | { contents: ResourceContents[] };

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
