/**
 * The shape of a generated `registry.gen.ts`: the only thing the runtime knows about a server.
 * `mcpgen build` emits it; `format` changes whenever this contract changes incompatibly.
 */
import type { ToolContext } from "./handler.js";

/** Any tool handler, as the registry sees it (the typed contract is in generated/handlers.gen.ts). */
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
}

export interface ToolEntry {
  readonly name: string;
  /** Hidden tools are callable but not listed. */
  readonly hidden: boolean;
  /** The tool's wire metadata, exactly as listed. */
  readonly wire: Readonly<WireTool>;
  /** Loads the tool's validators on first use (a large server does not load them all at start-up). */
  readonly validators: () => Promise<ToolValidators>;
  /** Loads the user's handler module on first use. */
  readonly handler: () => Promise<{ default: AnyToolHandler }>;
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
  readonly format: 1;
  readonly server: Readonly<ServerInfo>;
  readonly instructions?: string;
  /** Every tool, hidden ones included, sorted by name. */
  readonly tools: readonly ToolEntry[];
  /** The listed (non-hidden) tools as a JSON array, byte for byte what `tools/list` sends unpaginated. */
  readonly toolsListJson: string;
}
