/**
 * One POST request with at least one JSON-RPC request in it, as seen by the transport: the sink the core's
 * handlers write to, and the HTTP answer it becomes — JSON, or an SSE stream once something is sent before
 * the result.
 */
import type { Connection } from "../connection.js";
import type { Reply, Sink } from "../context.js";
import { primesStreams } from "../era.js";
import { errorResponse, type ErrorKind } from "../errors.js";
import type { AuthInfo } from "../handler.js";
import { Pending } from "../pending.js";
import type { RequestId } from "../protocol.js";
import type { ResolvedHttpOptions } from "./options.js";
import { json, reject, stream as streamOutput, type Answer, type HttpOutput } from "./output.js";
import type { HttpSession, Running, SessionExchange } from "./sessions.js";
import { SseStream } from "./sse.js";

/** What an exchange uses of its transport. */
export interface ExchangeHost {
  readonly options: ResolvedHttpOptions;
  /** The transport's clock (`options.clock`). */
  now(): number;
  /** An exchange starts (`true`) or stops (`false`) running. */
  track(exchange: Exchange, running: boolean): void;
  /** A stream id for the exchange's stream in `session` (event ids are `<stream>_<seq>`). */
  openedStream(session: HttpSession, exchange: Exchange): string;
  /** Stores an event for resumption. */
  append(session: HttpSession, streamId: string, eventId: string, message: string): void;
  report(error: unknown): void;
}

export class Exchange implements Sink, SessionExchange {
  private stream: SseStream | undefined;
  private streamId: string | undefined;
  private seq = 0;
  /** Takes the HTTP answer, once; cleared when it has. */
  private answer: Answer | undefined;
  private cancelHook: (() => void) | undefined;
  private connection: Connection | undefined;
  /** The reply being waited for (what a shutdown waits on), until it is handled. */
  private waiting: PromiseLike<unknown> | undefined = undefined;
  private done = false;
  private left = false;
  /** The kind of error the core answered with, if it did (the status of a 2026-era JSON answer). */
  private failure: ErrorKind | undefined;
  /** Links of the list of running exchanges this one is on (its session's, or the transport's). */
  prevRunning: Running | undefined = undefined;
  nextRunning: Running | undefined = undefined;

  constructor(
    private readonly transport: ExchangeHost,
    private readonly mode: "auto" | "json" | "sse",
    readonly auth: AuthInfo | undefined,
    private readonly modern: boolean,
    readonly session: HttpSession | undefined,
    /** Where the answer goes. Known before the core runs: a handler may send progress before its first `await`. */
    answer: Answer,
    /** A `subscriptions/listen` request: its stream stays open (with keep-alives) until either side ends it. */
    readonly listen = false,
  ) {
    this.answer = answer;
  }

  /** The client still waits for this answer (its connection, or the stream it was given, is open). */
  get attended(): boolean {
    if (this.stream && !this.answer) return !this.stream.gone;
    return !this.left;
  }

  /** The client's connection closed before the answer (2025 era: the request goes on). */
  clientLeft(): void {
    this.left = true;
  }

  /** In JSON response mode nothing can precede the response: no server→client requests either. */
  get streaming(): boolean {
    return this.mode !== "json";
  }

  failed(kind: ErrorKind): void {
    this.failure = kind;
  }

  send(message: string): void | Promise<void> {
    if (this.done) return undefined;
    if (!this.stream) {
      if (this.mode === "json" || !this.answer) return undefined;
      this.open();
    }
    const written = this.write(message);
    this.deliverStream();
    return written;
  }

  /** Turns the core's reply into the HTTP answer. `requestId` (2026 era) is cancelled if the stream closes. */
  respond(reply: Reply, connection: Connection, requestId: RequestId | undefined): void {
    if (typeof reply !== "object") {
      this.done = true;
      this.deliver(this.json(reply));
      return;
    }
    this.transport.track(this, true);
    this.session?.running.add(this);
    this.connection = connection;
    if (this.mode === "sse" && !this.stream) this.open();
    if (this.modern && requestId !== undefined && this.mode !== "json") {
      // 2026 era: a request whose stream the client closes is cancelled (a JSON answer has no stream: the
      // transport cancels it when the client disconnects).
      const onStreamCancel = (): void => void connection.cancel(requestId, "The client closed the response stream");
      if (this.stream) this.stream.onCancel(onStreamCancel);
      else this.cancelHook = onStreamCancel;
    }
    // A call waiting for its handler (`Pending`, which never rejects) is answered from its settlement itself:
    // a promise of its own (`then`) cost every such request ~250 bytes and a turn of the microtask queue.
    if (reply instanceof Pending) {
      this.waiting = reply;
      reply.whenAnswered((text) => this.finish(text));
      return;
    }
    this.waiting = reply.then(
      (text) => this.finish(text),
      (error: unknown) => {
        this.transport.report(error);
        this.failure = "internalError";
        this.finish(errorResponse(requestId, "internalError"));
      },
    );
  }

  /** The sequence of the last event sent on this exchange's stream. */
  get sequence(): number {
    return this.seq;
  }

  /** The server shuts down: the request's connection closes (a listen request then ends with its result). */
  closeConnection(): Promise<void> {
    if (!this.connection) return Promise.resolve();
    return this.connection.close(0).then(() => this.waiting).then(() => undefined);
  }

  /** A resumed GET stream takes over from the POST stream; the old one ends if it is still open. */
  reattach(stream: SseStream): void {
    if (this.done) {
      stream.end();
      return;
    }
    this.deliverStream();
    const old = this.stream;
    this.stream = stream;
    if (old && old !== stream) old.end();
  }

  /** The session closed: end the stream without a response. */
  abandon(): void {
    if (this.done) return;
    this.done = true;
    this.transport.track(this, false);
    this.session?.running.delete(this);
    this.stream?.end();
    if (this.stream) this.deliverStream();
    else this.deliver(reject("sessionNotFound", "Session closed"));
  }

  private open(): void {
    const stream = new SseStream();
    this.stream = stream;
    if (this.cancelHook) stream.onCancel(this.cancelHook);
    if (this.listen) stream.keepAliveEvery(this.transport.options.keepAliveMs);
    const session = this.session;
    if (session && this.transport.options.eventStore) {
      this.streamId = this.transport.openedStream(session, this);
      if (primesStreams(session.connection.session?.protocolVersion)) {
        // The client learns the stream's id at once, so that it can resume the stream if it breaks.
        stream.prime(`${this.streamId}_0`, this.transport.options.retryMs);
        this.deliverStream();
      }
    }
    if (this.listen) this.deliverStream(); // a stream meant to stay open: its keep-alives go out from the start
  }

  private write(message: string): void | Promise<void> {
    const stream = this.stream as SseStream;
    if (this.session && this.streamId !== undefined) {
      const eventId = `${this.streamId}_${++this.seq}`;
      this.transport.append(this.session, this.streamId, eventId, message);
      return stream.event(message, eventId);
    }
    return stream.event(message);
  }

  private finish(text: string | undefined): void {
    if (this.done) return;
    this.transport.track(this, false);
    this.session?.running.delete(this);
    if (this.stream) {
      if (text !== undefined) void this.write(text);
      this.done = true;
      this.stream.end();
      this.deliverStream();
      if (this.session && this.streamId !== undefined) this.session.exchanges.delete(this.streamId);
      if (this.session) this.session.lastActive = this.transport.now();
      return;
    }
    this.done = true;
    if (this.session) this.session.lastActive = this.transport.now();
    this.deliver(this.json(text));
  }

  /**
   * The stream is the answer. It is handed over at its first event (or the prime; a listen stream at once),
   * or when it ends: a request that needs no waiting then leaves as headers and events in one write.
   */
  private deliverStream(): void {
    if (this.answer && this.stream) this.deliver(streamOutput(this.stream));
  }

  /** Hands the answer over, unless it was already. */
  private deliver(output: HttpOutput): void {
    const answer = this.answer;
    this.answer = undefined;
    answer?.(output);
  }

  /** A JSON answer; a cancelled request (no reply) gets an SSE stream that ends without a message. */
  private json(text: string | undefined): HttpOutput {
    if (text === undefined) {
      const stream = new SseStream();
      stream.end();
      return streamOutput(stream);
    }
    // 2026 era: an error response carries its status from the error table (2025: 200 with the error inside).
    return json(text, this.modern ? this.failure : undefined);
  }
}
