/**
 * Streamable HTTP: a web-standard `fetch` handler (`createHttpHandler`) and a `node:http` adapter (`serve`).
 */
export { createHttpHandler, type HttpHandler } from "./fetch.js";
export { serve, type HttpServerHandle, type ServeOptions } from "./node.js";
export {
  AuthError,
  LOOPBACK_HOSTS,
  resolveHttpOptions,
  type Authenticate,
  type AuthInfo,
  type AuthRequest,
  type CorsOptions,
  type HttpOptions,
  type ResolvedHttpOptions,
  type ResponseMode,
} from "./options.js";
export { bearerAuth, type BearerAuthOptions } from "./security.js";
export { InMemoryEventStore, type EventStore, type InMemoryEventStoreOptions, type Replay, type StoredEvent } from "./event-store.js";
export { BodyError, type HttpInput, type HttpStats } from "./transport.js";
export type { HttpOutput } from "./output.js";
export type { SseStream, SseTarget } from "./sse.js";
