/**
 * The transport-agnostic server: what generated code and users create (`createServer`) and transports
 * connect to. A `Server` holds what is the same for every client (the `Core`: registry, serialized answers,
 * loaded tools); each `Connection` holds what one client channel negotiated and its requests in flight.
 */
import { Connection, type ConnectOptions } from "./connection.js";
import type { Sink } from "./context.js";
import { Core } from "./core.js";
import type { Era } from "./era.js";
import type { ListKind } from "./handler.js";
import type { ResolvedServerOptions, ServerOptions } from "./options.js";
import type { Registry } from "./registry.js";
import type { SubscriptionStats } from "./subscriptions.js";

/** @internal The core behind a server, for the transports of this package. */
export let coreOf: (server: Server) => Core;

export class Server {
  readonly #core: Core;

  static {
    coreOf = (server) => server.#core;
  }

  constructor(registry: Registry, options?: ServerOptions) {
    this.#core = new Core(registry, options);
  }

  get registry(): Registry {
    return this.#core.registry;
  }

  get options(): ResolvedServerOptions {
    return this.#core.options;
  }

  /** Opens a connection; a 2025-era session lives on it (stdio: the process; HTTP: `Mcp-Session-Id`). */
  connect(sink: Sink, options?: ConnectOptions): Connection {
    return new Connection(this.#core, sink, options);
  }

  /** Capabilities assembled from the registry, for an era (they differ only in how tasks are announced). */
  capabilities(era: Era = "modern"): Record<string, unknown> {
    return structuredClone(this.#core.capabilities[era]);
  }

  /**
   * Tells the clients subscribed to `uri` that it changed (`notifications/resources/updated`): 2025-era
   * sessions that sent `resources/subscribe` for it and 2026-era listen streams listing it, on every
   * transport this server serves.
   */
  resourceUpdated(uri: string): void {
    this.#core.resourceUpdated(uri);
  }

  /**
   * Tells clients that the tools, resources or prompts changed (`notifications/<kind>/list_changed`): every
   * 2025-era session and the 2026-era listen streams that asked for it.
   */
  listChanged(kind: ListKind): void {
    this.#core.listChanged(kind);
  }

  /** Settles when the server hears the changes published on its bus (at once without a bus). */
  get ready(): Promise<void> {
    return this.#core.listening;
  }

  /** 2025 era: server→client requests (`ctx.elicit`, `ctx.sample`, `ctx.listRoots`) awaiting the client's answer. */
  get awaitingClient(): number {
    return this.#core.outgoing.size;
  }

  /** Sizes of the subscription tables (2025-era sessions and subscriptions, 2026-era listen streams). */
  get subscriptionStats(): SubscriptionStats {
    return this.#core.subscriptions.stats;
  }
}

export function createServer(registry: Registry, options?: ServerOptions): Server {
  return new Server(registry, options);
}
