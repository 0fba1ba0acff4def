/**
 * mcpgen/runtime: serves a generated registry plus the user's handlers. No web framework, no schema
 * library: validators arrive precompiled.
 */
export * from "./handler.js";
export * from "./registry.js";
export { main, parseArgs, usage, type CliOptions, type ParsedArgs } from "./main.js";
export {
  createServer,
  resolveServerOptions,
  Server,
  Connection,
  type ConnectOptions,
  type ErrorContext,
  type LegacySession,
  type Reply,
  type ResolvedServerOptions,
  type ServerOptions,
  type Sink,
} from "./server.js";
export { serveStdio, type StdioOptions, type StdioSession } from "./stdio.js";
export { MemoryTaskStore, type MemoryTaskStoreOptions } from "./tasks/memory.js";
export { isTerminal, TERMINAL_STATUSES, type TaskError, type TaskPage, type TaskPatch, type TaskRecord, type TaskStatus, type TaskStore } from "./tasks/store.js";
export { TASKS_EXTENSION, type ResolvedTaskOptions, type TaskOptions } from "./tasks/tasks.js";
export { audio, embedded, image, resourceLink, text, toBase64, type AnnotationsInput } from "./content.js";
export { structured } from "./structured.js";
export type { SubscriptionFilter, SubscriptionStats } from "./subscriptions.js";
export * from "./http/index.js";
export { ERROR_TABLE, errorResponse, type ErrorKind, type ErrorSpec } from "./errors.js";
export {
  LATEST_LEGACY_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSIONS,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Era,
  type RequestId,
} from "./protocol.js";
