/**
 * A message bus between the instances of one server: what one instance publishes, every instance subscribed to
 * the channel receives (itself included). In one process the `LocalBus` is enough; behind a load balancer a
 * shared bus (Redis pub/sub, Postgres LISTEN/NOTIFY, …) carries change notifications and the answers to
 * server→client requests to the instance that waits for them.
 */

/** Stops a subscription. */
export type Unsubscribe = () => Promise<void>;

export interface Bus {
  /** Sends `message` to every subscriber of `channel`, on every instance. */
  publish(channel: string, message: string): Promise<void>;
  /** Calls `onMessage` for each message published on `channel` from now on, until the returned function is called. */
  subscribe(channel: string, onMessage: (message: string) => void): Promise<Unsubscribe>;
}

/** Subscribers per channel, shared by the in-process bus and the Redis bus's local fan-out. */
export class Channels {
  readonly #listeners = new Map<string, Set<(message: string) => void>>();

  /** Adds a listener; `true` when it is the channel's first (the shared bus must then subscribe). */
  add(channel: string, listener: (message: string) => void): boolean {
    let set = this.#listeners.get(channel);
    const first = set === undefined;
    if (set === undefined) this.#listeners.set(channel, (set = new Set()));
    set.add(listener);
    return first;
  }

  /** Removes a listener; `true` when the channel has none left. */
  remove(channel: string, listener: (message: string) => void): boolean {
    const set = this.#listeners.get(channel);
    if (set === undefined || !set.delete(listener) || set.size > 0) return false;
    this.#listeners.delete(channel);
    return true;
  }

  deliver(channel: string, message: string): void {
    const set = this.#listeners.get(channel);
    if (set === undefined) return;
    for (const listener of [...set]) {
      try {
        listener(message);
      } catch (error) {
        console.error(`[mcpgen] a subscriber of ${channel} threw:`, error);
      }
    }
  }
}

/** The default bus: one process, delivered on a later microtask so publishing never re-enters the caller. */
export class LocalBus implements Bus {
  readonly #channels = new Channels();

  async publish(channel: string, message: string): Promise<void> {
    await Promise.resolve();
    this.#channels.deliver(channel, message);
  }

  async subscribe(channel: string, onMessage: (message: string) => void): Promise<Unsubscribe> {
    this.#channels.add(channel, onMessage);
    return async () => void this.#channels.remove(channel, onMessage);
  }
}
