/**
 * 2025 era: a session's standalone stream (GET) — the messages the server sends outside any request — and
 * the resumption of any of the session's streams with `Last-Event-ID`. With sessions shared by several
 * instances, a standalone stream cut on one instance can resume on another: the new stream first re-sends,
 * under its own event ids, what the old one stored after the client's `Last-Event-ID`, then takes over
 * (`StandaloneHost.opened`, see `SessionSync` in transport.ts).
 */
import { primesStreams } from "../era.js";
import { streamOfEventId, type EventStore, type StoredEvent } from "./event-store.js";
import type { ResolvedHttpOptions } from "./options.js";
import { reject, stream as streamOutput, type HttpOutput } from "./output.js";
import type { HttpSession } from "./sessions.js";
import { SseStream } from "./sse.js";

/** What the standalone streams use of their transport. */
export interface StandaloneHost {
  readonly options: ResolvedHttpOptions;
  now(): number;
  append(session: HttpSession, streamId: string, eventId: string, message: string): void;
  /** A standalone stream of `session` opened here: from now on this copy writes the session's standalone events. */
  opened(session: HttpSession): void;
}

/** Whether `stream` is there and still carries events. */
export function isOpen(stream: SseStream | undefined): stream is SseStream {
  return stream !== undefined && !stream.gone && !stream.ended;
}

export class Standalone {
  constructor(private readonly host: StandaloneHost) {}

  /** GET on a session: the standalone stream, or (with `Last-Event-ID`) a resumed one. */
  get(session: HttpSession, lastEventId: string | undefined): HttpOutput | Promise<HttpOutput> {
    const store = this.host.options.eventStore;
    if (lastEventId !== undefined) {
      if (store) return this.resume(session, store, lastEventId);
      return reject("gone", "Gone: this server keeps no events to resume from; open a new stream without Last-Event-ID");
    }
    if (isOpen(session.standalone)) return reject("conflict", "Conflict: this session already has a standalone stream");
    return streamOutput(this.open(session));
  }

  /**
   * Server-initiated messages of a session: on its standalone stream. While that stream is down they are
   * stored all the same (once the client has had one), for a resume to replay; without an event store, or
   * before the first GET, they are dropped.
   */
  send(session: HttpSession, line: string): void | Promise<void> {
    const stream = session.standalone;
    const open = isOpen(stream);
    if (!this.host.options.eventStore || !session.standaloneResumable) return open ? stream.event(line) : undefined;
    const streamId = `${session.tag}0`;
    const eventId = `${streamId}_${++session.standaloneSeq}`;
    this.host.append(session, streamId, eventId, line);
    return open ? stream.event(line, eventId) : undefined;
  }

  /** Opens the standalone stream: the replayed events first (on a resume), then the priming event. */
  private open(session: HttpSession, replayed: readonly StoredEvent[] = []): SseStream {
    const { options } = this.host;
    const stream = new SseStream();
    session.standalone = stream;
    session.adopted = undefined;
    stream.keepAliveEvery(options.keepAliveMs);
    stream.onCancel(() => {
      if (session.standalone === stream) session.standalone = undefined;
      session.lastActive = this.host.now();
    });
    for (const event of replayed) void stream.event(event.message, event.id);
    if (options.eventStore) {
      session.standaloneResumable = true;
      if (primesStreams(session.connection.session?.protocolVersion)) stream.prime(`${session.tag}0_${session.standaloneSeq}`, options.retryMs);
    }
    this.host.opened(session);
    return stream;
  }

  /**
   * GET + `Last-Event-ID`: the events after that id, then the stream live (if it still runs). An id that is
   * not one of ours is a bad request; one whose successors are not all kept (forgotten past the store's
   * bounds, another session's, never sent) is 410 Gone — replaying only part would lose events silently.
   */
  private async resume(session: HttpSession, store: EventStore, lastEventId: string): Promise<HttpOutput> {
    const streamId = streamOfEventId(lastEventId);
    if (streamId === undefined) return reject("badRequest", "Bad Request: Last-Event-ID is not an event id of this server");
    // An in-memory store answers synchronously, so the replay and the reattachment below happen with no
    // event in between; an asynchronous store may miss events sent while it answers.
    const found = store.replay(session.id, lastEventId);
    let replay = found instanceof Promise ? await found : found;
    // Nothing sent on the stream since that id (say, only its priming event went out): nothing to replay.
    if (!replay && lastSequence(session, streamId) === Number(lastEventId.slice(streamId.length + 1))) replay = { streamId, events: [] };
    if (session.closed) return reject("sessionNotFound", "Session not found");
    if (!replay) {
      return reject("gone", "Gone: the events after this Last-Event-ID are no longer kept; open a new stream without Last-Event-ID (what was sent in between is lost)");
    }
    if (isStandaloneOfAnotherCopy(session, replay.streamId)) {
      // Another instance's standalone stream: this copy's own stream re-sends (and stores, under its own ids)
      // what that one kept after the client's id, and continues it.
      if (isOpen(session.standalone)) session.standalone.end();
      const stream = this.open(session);
      for (const event of replay.events) void this.send(session, event.message);
      session.adopted = { streamId: replay.streamId, lastEventId: replay.events.at(-1)?.id ?? lastEventId };
      return streamOutput(stream);
    }
    if (replay.streamId === `${session.tag}0`) {
      if (isOpen(session.standalone)) session.standalone.end();
      return streamOutput(this.open(session, replay.events));
    }
    const stream = new SseStream();
    for (const event of replay.events) stream.event(event.message, event.id);
    const exchange = session.exchanges.get(replay.streamId);
    if (exchange) exchange.reattach(stream);
    else stream.end();
    return streamOutput(stream);
  }

  /**
   * What another copy's standalone stream (the one this copy's continues) stored after the last event this
   * copy re-sent from it: that copy may have written a few more before it heard of the takeover.
   */
  async catchUp(session: HttpSession, store: EventStore): Promise<void> {
    const adopted = session.adopted;
    if (!adopted) return;
    const replay = await store.replay(session.id, adopted.lastEventId);
    if (!replay || session.adopted !== adopted || replay.events.length === 0) return;
    adopted.lastEventId = replay.events.at(-1)!.id;
    for (const event of replay.events) void this.send(session, event.message);
  }
}

/** The sequence of the last event sent on a stream of the session (`undefined`: no such stream). */
function lastSequence(session: HttpSession, streamId: string): number | undefined {
  return streamId === `${session.tag}0` ? session.standaloneSeq : session.exchanges.get(streamId)?.sequence;
}

/** A standalone stream written by another instance's copy of a shared session (stream ids `<tag>.0`). */
function isStandaloneOfAnotherCopy(session: HttpSession, streamId: string): boolean {
  return session.tag !== "" && streamId.endsWith(".0") && streamId !== `${session.tag}0`;
}
