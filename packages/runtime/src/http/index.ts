/**
 * Streamable HTTP: a web-standard `fetch` handler (`createHttpHandler`) and a `node:http` adapter (`serve`).
 * What this exports loads none of the transport: both load it when first used (serve.ts, fetch.ts), so a
 * server that does not serve HTTP never compiles it nor loads `node:http`, whatever imports the package.
 */
export { createHttpHandler, type HttpHandler } from "./fetch.js";
export { serve } from "./serve.js";
export type { HttpServerHandle, ServeOptions } from "./node.js";
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
export { BodyError, type BodyText, type HttpInput, type HttpStats } from "./input.js";
export type { HttpOutput } from "./output.js";
export type { SseStream, SseTarget } from "./sse.js";
