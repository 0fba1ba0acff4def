/**
 * The shape of a generated `registry.gen.ts`: the only thing the runtime knows about a server.
 * `mcpgen build` emits it; `format` changes whenever this contract changes incompatibly.
 */
import type { ResourceContents, ResourceFields, ToolContext } from "./handler.js";

/**
 * Any tool handler, as the runtime sees it. The generated registry declares each tool's loader with the
 * tool's own handler type (from generated/handlers.gen.ts), so a handler module that drifts from its
 * schemas fails to compile there, whether or not its file carries the type annotation.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyToolHandler = (input: any, ctx: ToolContext) => Promise<unknown>;

/** One error of a precompiled (ajv standalone) validator. */
export interface ValidationError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** A precompiled validator: returns whether `data` is valid and leaves the reasons in `errors`. */
export interface Validate {
  (data: unknown): boolean;
  errors?: ValidationError[] | null;
}

/** A tool's validator module, `generated/validators/<tool>.gen.js`. */
export interface ToolValidators {
  input: Validate;
  /** Present when the tool declares an `outputSchema`. */
  output?: Validate;
}

/** The tool as sent in `tools/list`. */
export interface WireTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  icons?: Record<string, unknown>[];
  _meta?: Record<string, unknown>;
  /** Whether a call may (`optional`) or must (`required`) run as a task; `forbidden` when absent. */
  execution?: { taskSupport?: "forbidden" | "optional" | "required" };
}

export interface ToolEntry {
  readonly name: string;
  /** Hidden tools are callable but not listed. */
  readonly hidden: boolean;
  /**
   * The tool's wire metadata, exactly as listed: the object, or its JSON text. Generated registries hold the
   * text (`JSON.stringify`'s): a server then parses none of it at start-up, sends it in `tools/list` as it
   * is, and parses a tool's metadata only when a call needs a member of it.
   */
  readonly wire: Readonly<WireTool> | string;
  /** Loads the tool's validators on first use (a large server does not load them all at start-up). */
  readonly validators: () => Promise<ToolValidators>;
  /** Loads the user's handler module on first use (typed in the generated registry, see `AnyToolHandler`). */
  readonly handler: () => Promise<{ default: AnyToolHandler }>;
}

/** A static resource as sent in `resources/list`. */
export interface WireResource extends ResourceFields {
  uri: string;
  size?: number;
  icons?: Record<string, unknown>[];
  annotations?: Record<string, unknown>;
}

/** A resource template as sent in `resources/templates/list`. */
export interface WireResourceTemplate extends ResourceFields {
  uriTemplate: string;
  icons?: Record<string, unknown>[];
  annotations?: Record<string, unknown>;
}

/** A prompt as sent in `prompts/list`. */
export interface WirePrompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: { name: string; title?: string; description?: string; required?: boolean }[];
  icons?: Record<string, unknown>[];
  _meta?: Record<string, unknown>;
}

/** Per variable or argument: fixed completion values, or `"handler"` for the module's `complete` export. */
export type Completions = Readonly<Record<string, readonly string[] | "handler">>;

/** Any resource, template or prompt handler module, as the registry sees it. */
export interface AnyHandlerModule {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  default: (...args: any[]) => Promise<unknown>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  complete?: Record<string, (...args: any[]) => Promise<unknown>>;
}

export interface ResourceEntry {
  readonly name: string;
  readonly wire: Readonly<WireResource>;
  /** Contents written in the schema file; such a resource has no handler. */
  readonly contents?: Readonly<ResourceContents>;
  /** Loads the handler module that reads the resource (when there are no inline contents). */
  readonly handler?: () => Promise<AnyHandlerModule>;
}

export interface ResourceTemplateEntry {
  readonly name: string;
  readonly wire: Readonly<WireResourceTemplate>;
  /** The template's variables, in order. */
  readonly variables: readonly string[];
  /** Validates (and coerces to their declared types) the variables extracted from a URI. */
  readonly validators: () => Promise<{ variables: Validate }>;
  readonly handler: () => Promise<AnyHandlerModule>;
  readonly completions: Completions;
}

export interface PromptEntry {
  readonly name: string;
  readonly wire: Readonly<WirePrompt>;
  /** Validates the arguments of `prompts/get`. */
  readonly validators: () => Promise<{ args: Validate }>;
  readonly handler: () => Promise<AnyHandlerModule>;
  readonly completions: Completions;
}

export interface ServerInfo {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Record<string, unknown>[];
}

export interface Registry {
  /** The registry format this file was generated for. */
  readonly format: 2;
  readonly server: Readonly<ServerInfo>;
  readonly instructions?: string;
  /**
   * Every tool, hidden ones included, sorted by name. The listed ones' `wire`, in this order, is the
   * `tools/list` payload; the runtime puts it together once, on the first `tools/list`.
   */
  readonly tools: readonly ToolEntry[];
  /** Static resources, sorted by name (`resources/list`). */
  readonly resources?: readonly ResourceEntry[];
  /** Resource templates, sorted by name (`resources/templates/list`). */
  readonly resourceTemplates?: readonly ResourceTemplateEntry[];
  /** Prompts, sorted by name (`prompts/list`). */
  readonly prompts?: readonly PromptEntry[];
}
