/**
 * 2025-era HTTP sessions: one core connection per `Mcp-Session-Id`, the streams that carry its messages,
 * and when it was last active. Time comes from the caller (the transport's injected clock): `touch(now)`
 * on traffic, `sweep(now)` to find the sessions idle past the limit.
 */
import type { Connection } from "../connection.js";
import type { SessionRecord } from "../state/sessions.js";
import type { SseStream } from "./sse.js";

/** A member of a `RunningList`: the list's links, kept on the member. */
export interface Running {
  prevRunning: Running | undefined;
  nextRunning: Running | undefined;
}

/**
 * Requests still running (a session's, or the transport's outside sessions), linked through the requests
 * themselves: adding and removing one allocates nothing. A `Set` that fills and empties with every request
 * reallocates its table each time, in the old generation once its table lives there (garbage for the next
 * full collection at every request). A member is on one list at a time.
 */
export class RunningList<T extends Running> implements Iterable<T> {
  #first: T | undefined = undefined;

  add(member: T): void {
    member.prevRunning = undefined;
    member.nextRunning = this.#first;
    if (this.#first) this.#first.prevRunning = member;
    this.#first = member;
  }

  /** Removes `member` if it is on the list. */
  delete(member: T): void {
    const { prevRunning: prev, nextRunning: next } = member;
    if (prev) prev.nextRunning = next;
    else if (this.#first === member) this.#first = next as T | undefined;
    else return;
    if (next) next.prevRunning = prev;
    member.prevRunning = member.nextRunning = undefined;
  }

  clear(): void {
    this.#first = undefined;
  }

  /** Each member; the one just given may leave the list meanwhile. */
  *[Symbol.iterator](): Iterator<T> {
    for (let member = this.#first; member !== undefined; ) {
      const next = member.nextRunning as T | undefined;
      yield member;
      member = next;
    }
  }
}

/** What a session needs of the POST exchanges that run in it. */
export interface SessionExchange extends Running {
  /** The client still waits for this answer. */
  readonly attended: boolean;
  /** The sequence of the last event sent on this exchange's stream. */
  readonly sequence: number;
  /** The session closed: end the stream without a response. */
  abandon(): void;
  /** A resumed GET stream takes over from the POST stream. */
  reattach(stream: SseStream): void;
}

export interface HttpSession {
  readonly id: string;
  readonly connection: Connection;
  /** The principal that created the session (requests from another principal do not find it). */
  readonly subject: string | undefined;
  lastActive: number;
  /** When the shared session store last had its expiry pushed back (throttles the refreshes). */
  refreshedAt: number;
  /**
   * Prefix of this copy's stream ids: `""` in one process (streams `0`, `1`, …); with sessions shared by
   * several instances a random tag per copy (`k3f9x2ab.0`, …), so that no two copies ever write the same
   * event id into the shared event store.
   */
  readonly tag: string;
  /** The standalone GET stream, if open. */
  standalone: SseStream | undefined;
  /** Sequence of the standalone stream's events (stream id `<tag>0`). */
  standaloneSeq: number;
  /**
   * Shared sessions: this copy writes the session's standalone events (it opened the standalone stream
   * last; see `SessionSync`). The others hand their messages to it over the bus.
   */
  holder: boolean;
  /**
   * This copy has claimed the stream and not yet heard its own claim back on the bus. Messages that every
   * copy hears (change notifications, messages handed over) and that reach it before then were published
   * before the claim, so the previous holder writes them: this copy leaves them alone.
   */
  claimPending: boolean;
  /** Shared sessions: what the store holds of the session (kept current as this copy changes it). */
  record: SessionRecord | undefined;
  /** Shared sessions: the stream of another copy this copy's standalone stream continues, and the last event copied from it. */
  adopted: { streamId: string; lastEventId: string } | undefined;
  /** The last event store write of this session (a copy handing its stream over waits for it). */
  lastAppend: Promise<unknown>;
  /**
   * A standalone stream was opened once: from then on its events are stored even while no stream is open,
   * so that a client reconnecting with `Last-Event-ID` gets what it missed in between.
   */
  standaloneResumable: boolean;
  /** POST streams whose requests are still running, by stream id (for `Last-Event-ID` reattachment). */
  readonly exchanges: Map<string, SessionExchange>;
  /** Every request of the session still running (a session whose clients all left can expire). */
  readonly running: RunningList<SessionExchange>;
  nextStream: number;
  closed: boolean;
  /** Settles once this copy hears its session's bus channel (shared sessions only). */
  attached: Promise<unknown>;
  /** Stops hearing what other instances forward to this session (shared sessions only). */
  detach: (() => Promise<void>) | undefined;
}

export class SessionTable {
  readonly #sessions = new Map<string, HttpSession>();
  /** The session `find` found last: a client names the same one request after request (cache.ts). */
  #last: HttpSession | undefined;

  constructor(private readonly idleMs: number) {}

  get size(): number {
    return this.#sessions.size;
  }

  values(): IterableIterator<HttpSession> {
    return this.#sessions.values();
  }

  /**
   * A new session around `connection`, created by `subject`, active `now`: `id` is its id (new, or restored
   * from a store), `record` what a shared store holds of it (shared sessions only).
   */
  create(connection: Connection, subject: string | undefined, now: number, id: string, record?: SessionRecord): HttpSession {
    const session: HttpSession = {
      id,
      connection,
      subject,
      lastActive: now,
      refreshedAt: now,
      tag: record ? `${crypto.randomUUID().slice(0, 8)}.` : "",
      standalone: undefined,
      standaloneSeq: 0,
      holder: false,
      claimPending: false,
      record,
      adopted: undefined,
      lastAppend: Promise.resolve(),
      standaloneResumable: false,
      exchanges: new Map(),
      running: new RunningList(),
      nextStream: 1,
      closed: false,
      attached: Promise.resolve(),
      detach: undefined,
    };
    this.#sessions.set(session.id, session);
    return session;
  }

  /** The open session `id` of `subject` (another principal's session is not found). */
  find(id: string, subject: string | undefined): HttpSession | undefined {
    const last = this.#last;
    const session = last !== undefined && last.id === id ? last : this.#sessions.get(id);
    if (!session || session.closed || session.subject !== subject) return undefined;
    this.#last = session;
    return session;
  }

  /** The open session `id`, whoever opened it. */
  get(id: string): HttpSession | undefined {
    return this.#sessions.get(id);
  }

  touch(session: HttpSession, now: number): void {
    session.lastActive = now;
  }

  /** Marks `session` closed and forgets it; `false` when it was closed already. */
  remove(session: HttpSession): boolean {
    if (session.closed) return false;
    session.closed = true;
    this.#sessions.delete(session.id);
    if (this.#last === session) this.#last = undefined;
    return true;
  }

  /**
   * The sessions idle for longer than the limit at `now`: no traffic, no open standalone stream, and no
   * request whose client is still there (a request whose client vanished — say, in the middle of an
   * elicitation — does not keep its session alive forever).
   */
  sweep(now: number): HttpSession[] {
    const cutoff = now - this.idleMs;
    const idle: HttpSession[] = [];
    for (const session of this.#sessions.values()) {
      if (session.lastActive > cutoff) continue;
      if (session.standalone !== undefined && !session.standalone.gone && !session.standalone.ended) continue;
      let attended = false;
      for (const exchange of session.running) if (exchange.attended) attended = true;
      if (!attended) idle.push(session);
    }
    return idle;
  }
}
