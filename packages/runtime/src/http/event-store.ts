/**
 * Resumability (2025 era): every event sent on a session's SSE streams is kept in an `EventStore`, so that a
 * client whose stream broke can reconnect with `GET` + `Last-Event-ID` and receive what it missed on that
 * stream. Event ids are `<stream id>_<sequence>`, so an id names its stream. The in-memory default is bounded:
 * past its limits the oldest events are forgotten (a client asking for them learns that the id is unknown).
 */

/** An event as stored: its id and the serialized message. */
export interface StoredEvent {
  readonly id: string;
  readonly message: string;
}

/** What a `Last-Event-ID` leads to: the stream it belongs to and the events after it. */
export interface Replay {
  readonly streamId: string;
  readonly events: readonly StoredEvent[];
}

/**
 * Where a session's SSE events are kept for replay. Implementations may be asynchronous (a shared store
 * behind several instances); the transport keeps the order of its own writes.
 */
export interface EventStore {
  /** Keeps one event sent on `streamId` of `sessionId`. */
  append(sessionId: string, streamId: string, eventId: string, message: string): void | Promise<void>;
  /** The events after `lastEventId` on its stream, or `undefined` when the id is unknown or forgotten. */
  replay(sessionId: string, lastEventId: string): Replay | undefined | Promise<Replay | undefined>;
  /** Forgets everything of a session (it was deleted or expired). */
  dropSession(sessionId: string): void | Promise<void>;
}

/** The stream an event id belongs to (`<stream>_<sequence>`), or `undefined` when it is not one of ours. */
export function streamOfEventId(eventId: string): string | undefined {
  const cut = eventId.lastIndexOf("_");
  if (cut <= 0 || !/^[0-9]+$/.test(eventId.slice(cut + 1))) return undefined;
  return eventId.slice(0, cut);
}

export interface InMemoryEventStoreOptions {
  /** Upper bound of the stored messages' total length, in UTF-16 code units (default 16 Mi). */
  maxTotalSize?: number;
  /** At most this many events per stream; older ones are forgotten first (default 1,000). */
  maxEventsPerStream?: number;
}

interface Entry {
  readonly sessionId: string;
  readonly streamId: string;
  readonly id: string;
  readonly message: string;
  /** Forgotten already (its session was dropped, or its stream outgrew its limit). */
  dead: boolean;
}

/**
 * The default store: one process, bounded memory. All events sit in one arrival-ordered queue; when the
 * total size or a stream's count exceeds its limit the oldest events go first.
 */
export class InMemoryEventStore implements EventStore {
  private readonly maxTotalSize: number;
  private readonly maxEventsPerStream: number;
  private queue: Entry[] = [];
  private head = 0;
  private size = 0;
  private live = 0;
  /** session → stream → its live events, oldest first. */
  private readonly sessions = new Map<string, Map<string, Entry[]>>();

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.maxTotalSize = options.maxTotalSize ?? 16 * 1024 * 1024;
    this.maxEventsPerStream = options.maxEventsPerStream ?? 1000;
  }

  /** Events currently kept, and their total size. */
  get stats(): { events: number; size: number; sessions: number } {
    return { events: this.live, size: this.size, sessions: this.sessions.size };
  }

  append(sessionId: string, streamId: string, eventId: string, message: string): void {
    let streams = this.sessions.get(sessionId);
    if (!streams) this.sessions.set(sessionId, (streams = new Map()));
    let list = streams.get(streamId);
    if (!list) streams.set(streamId, (list = []));
    const entry: Entry = { sessionId, streamId, id: eventId, message, dead: false };
    list.push(entry);
    this.queue.push(entry);
    this.size += message.length;
    this.live++;
    if (list.length > this.maxEventsPerStream) this.forget(list.shift() as Entry);
    while (this.size > this.maxTotalSize && this.head < this.queue.length) {
      const oldest = this.queue[this.head++] as Entry;
      if (oldest.dead) continue;
      const events = this.sessions.get(oldest.sessionId)?.get(oldest.streamId);
      if (events?.[0] === oldest) events.shift();
      this.forget(oldest);
    }
    this.compact();
  }

  replay(sessionId: string, lastEventId: string): Replay | undefined {
    const streamId = streamOfEventId(lastEventId);
    if (streamId === undefined) return undefined;
    const list = this.sessions.get(sessionId)?.get(streamId);
    // Nothing kept of the stream: nothing was lost after a priming id that names no event yet (`<stream>_0`).
    if (!list) return lastEventId === `${streamId}_0` ? { streamId, events: [] } : undefined;
    const at = list.findIndex((entry) => entry.id === lastEventId);
    if (at === -1) {
      // The event itself may be a priming event (never stored) or already forgotten: replay everything kept
      // after it only when the sequence proves nothing in between was lost.
      const sequence = Number(lastEventId.slice(streamId.length + 1));
      const first = list[0];
      if (first && Number(first.id.slice(streamId.length + 1)) === sequence + 1) return { streamId, events: list.map(toEvent) };
      return list.length === 0 ? { streamId, events: [] } : undefined;
    }
    return { streamId, events: list.slice(at + 1).map(toEvent) };
  }

  dropSession(sessionId: string): void {
    const streams = this.sessions.get(sessionId);
    if (!streams) return;
    this.sessions.delete(sessionId);
    for (const list of streams.values()) for (const entry of list) this.forget(entry);
    this.compact();
  }

  private forget(entry: Entry): void {
    if (entry.dead) return;
    entry.dead = true;
    this.size -= entry.message.length;
    this.live--;
    const streams = this.sessions.get(entry.sessionId);
    const list = streams?.get(entry.streamId);
    if (streams && list && list.length === 0) {
      streams.delete(entry.streamId);
      if (streams.size === 0) this.sessions.delete(entry.sessionId);
    }
  }

  /** Drops forgotten entries from the front of the queue, and rebuilds it when it is mostly dead weight. */
  private compact(): void {
    while (this.head < this.queue.length && (this.queue[this.head] as Entry).dead) this.head++;
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    if (this.queue.length > 4096 && this.queue.length - this.head > 2 * this.live) {
      this.queue = this.queue.slice(this.head).filter((entry) => !entry.dead);
      this.head = 0;
    }
  }
}

function toEvent(entry: Entry): StoredEvent {
  return { id: entry.id, message: entry.message };
}
