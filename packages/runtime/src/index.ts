/**
 * mcpgen/runtime: serves a generated registry plus the user's handlers. No web framework, no schema
 * library: validators arrive precompiled.
 */
export * from "./handler.js";
export * from "./registry.js";
export { main, parseArgs, tuneHeap, usage, type CliOptions, type ParsedArgs, type TuneHeapOptions } from "./main.js";
export { createServer, Server } from "./server.js";
export type { Connection, ConnectOptions } from "./connection.js";
export type { LegacySession, Reply, Sink } from "./context.js";
export { resolveServerOptions, type ErrorContext, type ResolvedServerOptions, type ServerOptions } from "./options.js";
export { serveStdio, type StdioOptions, type StdioSession } from "./stdio.js";
export { MemoryTaskStore, type MemoryTaskStoreOptions } from "./tasks/memory.js";
export { isTerminal, TERMINAL_STATUSES, type TaskError, type TaskPage, type TaskPatch, type TaskRecord, type TaskStatus, type TaskStore } from "./tasks/store.js";
export { type ResolvedTaskOptions, type TaskOptions } from "./tasks/options.js";
export { TASKS_EXTENSION } from "./tasks/tasks.js";
export { LocalBus, type Bus, type Unsubscribe } from "./state/bus.js";
export { InMemorySessionStore, type SessionRecord, type SessionStore } from "./state/sessions.js";
export { audio, embedded, image, resourceLink, structured, text, toBase64, type AnnotationsInput } from "./content.js";
export type { SubscriptionFilter, SubscriptionStats } from "./subscriptions.js";
export * from "./http/index.js";
export { ERROR_TABLE, errorResponse, type ErrorKind, type ErrorSpec } from "./errors.js";
export {
  LATEST_LEGACY_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSIONS,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Era,
} from "./era.js";
export type { RequestId } from "./protocol.js";
