/**
 * The `node:http` adapter: `serve(server, { host, port })`. It talks to the transport directly (no
 * Request/Response objects on the way), binds 127.0.0.1 unless told otherwise, and bounds how long a client
 * may take to send its request (slow bodies cannot pin sockets forever).
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { MessageParser } from "../json.js";
import type { Server } from "../server.js";
import { keepTickEntry } from "../ticks.js";
import { sessionClock, type CoarseClock } from "./clock.js";
import { LOOPBACK_HOSTS, resolveHttpOptions, type HttpOptions } from "./options.js";
import { BodyError, type BodyText, type HttpInput, type HttpStats } from "./input.js";
import { HttpTransport } from "./transport.js";
import type { HttpOutput } from "./output.js";
import type { SseStream, SseTarget } from "./sse.js";

export interface ServeOptions extends HttpOptions {
  /** Interface to bind (default `127.0.0.1`: loopback only). */
  host?: string;
  /** Port (default 3000; 0 picks a free one). */
  port?: number;
  /** A client must have sent its whole request within this many ms (default 30,000), else 408. */
  requestTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this many ms (default 5,000). */
  keepAliveTimeoutMs?: number;
}

export interface HttpServerHandle {
  /** The MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly stats: HttpStats;
  /** Stops accepting, closes sessions and streams, and resolves once every socket is closed. */
  close(): Promise<void>;
  /** @internal */
  readonly transport: HttpTransport;
}

/** Loopback only, unless told otherwise. */
const DEFAULT_HOST = "127.0.0.1";

export async function serve(server: Server, options: ServeOptions = {}): Promise<HttpServerHandle> {
  const host = options.host ?? DEFAULT_HOST;
  const port = options.port ?? 3000;
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const { transport, clock } = nodeTransport(server, options);
  keepTickEntry();

  const http = createHttpServer(
    {
      requestTimeout: requestTimeoutMs,
      headersTimeout: Math.min(requestTimeoutMs, 60_000),
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 5000,
      connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(requestTimeoutMs / 4))),
    },
    (req, res) => {
      const input = new NodeInput(req, res, stateOf(req.socket));
      transport.serve(input, input.answer);
    },
  );
  http.on("connection", onConnection);
  http.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    const state = stateOf(socket);
    if (state.refuse) return; // answered (or about to be) already
    const status =
      error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? "408 Request Timeout" : error.code === "HPE_HEADER_OVERFLOW" ? "431 Request Header Fields Too Large" : "400 Bad Request";
    let refused = false;
    const refuseNow = (): void => {
      if (refused) return;
      refused = true;
      if (socket.writable && !socket.writableEnded) socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      else socket.destroy();
    };
    // Refuses once Node is done with every response: it writes a connection's responses in order and, after
    // each, ends the connection or starts the next one; then it closes the response. So once the latest one
    // is closed (`destroyed`, also the mark of one whose connection went away), all are.
    const refuse = (): void => {
      const last = state.last;
      if (last === undefined || last.destroyed) refuseNow();
      else last.once("close", refuseNow);
    };
    state.refuse = refuse;
    const open = state.open;
    if (open.length === 0) return refuse();
    // The error is about a request still arriving (its body broke off or took too long), the connection's last:
    // answer it only if no byte of its response went out (else the bytes would land inside it), as Node itself
    // does, once the responses before it are out (Node gives it the connection then).
    if (open.some((input) => !input.req.complete)) {
      const res = open.length === 1 ? open[0]?.res : undefined;
      if (!res || res.headersSent) return void socket.destroy();
      if (res.socket) return refuseNow();
      return void res.once("socket", refuseNow);
    }
    // Complete requests came before the bad bytes (pipelined, or an SSE stream still open): they are answered
    // first, in order; the refusal follows the last of them.
  });

  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, host, () => {
      http.off("error", reject);
      resolve();
    });
  });
  const address = http.address() as AddressInfo;
  const urlHost = address.family === "IPv6" ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}${transport.options.path}`,
    host: address.address,
    port: address.port,
    get stats() {
      return transport.stats;
    },
    transport,
    close: () =>
      (closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
        await transport.close();
        clock?.stop();
        http.closeIdleConnections();
        setTimeout(() => http.closeAllConnections(), 1000).unref();
        await stopped;
      })()),
  };
}

/**
 * The transport as `serve` runs it: hosts allowed by the bound host (unless told), and, with no `clock` given,
 * sessions timed by a `CoarseClock` (clock.ts), returned so that `close()` stops it.
 */
export function nodeTransport(server: Server, options: ServeOptions = {}): { transport: HttpTransport; clock: CoarseClock | undefined } {
  const resolved = resolveHttpOptions({ ...options, allowedHosts: options.allowedHosts ?? defaultHosts(options.host ?? DEFAULT_HOST) });
  if (options.clock !== undefined) return { transport: new HttpTransport(server, resolved), clock: undefined };
  const clock = sessionClock(resolved.sessionIdleMs);
  return { transport: new HttpTransport(server, { ...resolved, clock: () => clock.now() }), clock };
}

/** Loopback names, plus the bound host itself when it is a specific one. */
function defaultHosts(host: string): string[] {
  const hosts = [...LOOPBACK_HOSTS];
  const name = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  if (!["0.0.0.0", "[::]", "::"].includes(host) && !hosts.includes(name.toLowerCase())) hosts.push(name.toLowerCase());
  return hosts;
}

/** What the adapter keeps on a connection. */
interface SocketState {
  /** Its requests whose responses are not ended yet, oldest first. */
  readonly open: NodeInput[];
  /** Its latest response. */
  last: ServerResponse | undefined;
  /** Set once the connection sent bytes that are not HTTP: refuses it once its last response is finished. */
  refuse: (() => void) | undefined;
  /** Its request bodies' parser, made by the first: it remembers the client's 2026-era envelope. */
  parser: MessageParser | undefined;
}

const SOCKET_STATE = Symbol("mcpgen.socket");
/** The `NodeInput` of a request and of its response, for the listeners below (one function for all of them). */
const INPUT = Symbol("mcpgen.input");
type WithInput<T> = T & { [INPUT]: NodeInput };

type WithState = Socket & { [SOCKET_STATE]?: SocketState };

function stateOf(socket: Socket): SocketState {
  return ((socket as WithState)[SOCKET_STATE] ??= { open: [], last: undefined, refuse: undefined, parser: undefined });
}

/**
 * One request and its response, as the transport sees them. Per request there is this object and its `answer`
 * function: the body's listeners (and a stream's `drain`) are shared functions that find the object on the
 * request or response they are called on, and the response has no listener of its own: the adapter ends
 * every response itself, and a client that goes away closes the connection (`onSocketClose`).
 */
class NodeInput implements HttpInput, SseTarget {
  readonly method: string;
  readonly path: string;
  /** Told when the client goes away before the response is complete: the transport gives one, as a rule. */
  #disconnect: (() => void) | (() => void)[] | undefined;
  /** The SSE stream the response carries, once it is one. */
  #stream: SseStream | undefined;
  /** The body being read (`text`). */
  #body: BodyRead | undefined;
  /** The answer (kept: it is given once). */
  #output: HttpOutput | undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    private readonly socket: SocketState,
  ) {
    const url = req.url ?? "/";
    const query = url.indexOf("?");
    this.method = req.method ?? "GET";
    this.path = query === -1 ? url : url.slice(0, query);
    socket.open.push(this);
    socket.last = res;
  }

  header(name: string): string | undefined {
    const value = this.req.headers[name];
    return value === undefined ? undefined : Array.isArray(value) ? value.join(", ") : value;
  }

  parse(text: string): unknown {
    return (this.socket.parser ??= new MessageParser()).parse(text);
  }

  text(limit: number): BodyText {
    const req = this.req;
    const length = this.header("content-length");
    if (length !== undefined && Number(length) > limit) {
      // Nothing read yet; a body that will be cut off anyway is not read at all.
      if (Number(length) > limit + DISCARD_LIMIT) return Promise.reject(tooLarge());
      return discardRest(req, limit + DISCARD_LIMIT).then(() => Promise.reject(tooLarge()));
    }
    if (req.destroyed) return Promise.reject(unreadable());
    const body = new BodyRead(limit);
    this.#body = body;
    (req as WithInput<IncomingMessage>)[INPUT] = this;
    req.on("data", onBodyData);
    req.on("end", onBodyEnd);
    return body;
  }

  /** A chunk of the body: kept, unless the body outgrew its limit (the rest is read and dropped, then 413). */
  bodyData(chunk: Buffer): void {
    const body = this.#body;
    if (!body) return;
    body.size += chunk.length;
    if (body.size <= body.limit) {
      body.chunks.push(chunk);
      return;
    }
    this.#body = undefined;
    this.req.off("data", onBodyData);
    discardRest(this.req, DISCARD_LIMIT).then(() => body.settle(undefined, tooLarge()));
  }

  /** The body ended (`complete`), or the connection closed before it did. */
  bodyEnd(complete: boolean): void {
    const body = this.#body;
    if (!body) return;
    this.#body = undefined;
    if (!complete) body.settle(undefined, unreadable());
    else body.settle(body.chunks.length === 1 ? (body.chunks[0] as Buffer).toString("utf8") : Buffer.concat(body.chunks, body.size).toString("utf8"));
  }

  onDisconnect(listener: () => void): void {
    const known = this.#disconnect;
    this.#disconnect = known === undefined ? listener : typeof known === "function" ? [known, listener] : [...known, listener];
  }

  /** The response is ended: the connection has one open request fewer. */
  #ended(): void {
    const open = this.socket.open;
    if (open[0] === this) open.shift(); // the oldest, as a rule
    else {
      const at = open.indexOf(this);
      if (at === -1) return;
      open.splice(at, 1);
    }
    if (open.length === 0) this.socket.refuse?.();
  }

  /** The connection closed before the response was ended: the client went away. */
  abandoned(): void {
    this.#ended();
    this.bodyEnd(false); // a body still being read broke off
    const told = this.#disconnect;
    if (typeof told === "function") told();
    else if (told) for (const listener of told) listener();
    this.#stream?.cancel();
  }

  /** Takes the transport's answer (a function of its own: the transport keeps it until the answer is known). */
  readonly answer = (output: HttpOutput): void => {
    if (this.#output) return; // the transport answers once; a second answer would land inside the first
    this.#output = output;
    turn.answer(this);
  };

  /** Writes the answer given to `answer`. */
  flush(): void {
    const output = this.#output as HttpOutput;
    try {
      this.#write(output);
    } catch (error) {
      console.error("[mcpgen] HTTP response could not be written:", error);
      this.#fail();
    }
  }

  #write(output: HttpOutput): void {
    const res = this.res;
    // The connection may be gone before Node marks its response (the adapter hears of it first).
    if (res.destroyed || this.req.socket.destroyed) {
      this.#ended();
      output.stream?.cancel();
      return;
    }
    if (output.status === 413 && !this.req.complete) res.shouldKeepAlive = false; // the rest of the body was not read
    const stream = output.stream;
    if (!stream) {
      const body = output.body;
      if (body !== undefined) output.headers["content-length"] = String(Buffer.byteLength(body));
      res.writeHead(output.status, output.headers);
      res.end(body);
      this.#ended();
      return;
    }
    res.writeHead(output.status, output.headers);
    // Headers leave with the first events when some are ready (one write per answer); else at once, so the
    // client sees its stream open.
    if (!stream.buffered) res.flushHeaders();
    this.#stream = stream;
    stream.attach(this); // a stream complete at once ends here (`end`)
    if (stream.ended) return;
    (res as WithInput<ServerResponse>)[INPUT] = this;
    res.on("drain", onResponseDrain);
  }

  /** The answer could not be written: a 500 if nothing was sent yet, else the connection is cut. */
  #fail(): void {
    const res = this.res;
    if (res.headersSent) res.destroy();
    else {
      res.writeHead(500, { "content-type": "application/json" });
      res.end('{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}');
    }
    this.#ended();
  }

  // SseTarget: the stream's bytes go into the response.
  write(chunk: string): boolean {
    return this.res.write(chunk);
  }

  end(chunk?: string): void {
    this.res.end(chunk);
    this.#ended();
  }

  drained(): void {
    this.#stream?.drained();
  }
}

/**
 * A body being read: its chunks so far, and what `text()` returned. It tells the transport from the body's
 * end itself: a promise there cost a request ~100 ns of its ~2 µs in process (the promise, its resolving
 * functions, and a turn of the microtask queue). The transport calls `then` as soon as `text()` returns; the
 * body's events come later.
 */
class BodyRead implements BodyText {
  readonly chunks: Buffer[] = [];
  size = 0;
  #onText: ((text: string) => void) | undefined;
  #onError: ((error: unknown) => void) | undefined;

  constructor(readonly limit: number) {}

  then(onText: (text: string) => void, onError: (error: unknown) => void): void {
    this.#onText = onText;
    this.#onError = onError;
  }

  /** The text, or the error the body ended with. */
  settle(text: string | undefined, error?: BodyError): void {
    const onText = this.#onText;
    const onError = this.#onError;
    this.#onText = this.#onError = undefined;
    if (error) onError?.(error);
    else onText?.(text as string);
  }
}

/**
 * When answers are written. Under concurrent load from many connections, the answers of one burst of work are
 * written together once the event loop has read every request it can (`setImmediate`): a burst of responses
 * reaches clients that are already awake, where one response after each request's own work would wake one
 * every time, and that costs the server more than the write. A lone answer (one client, one request at a
 * time) has nothing to batch, and waiting only adds latency: the answer is written at once when the loop has
 * waited for I/O since the last answer written at once (the loop's idle time moved), and from a burst's
 * second answer on the answers are batched, until a batch holds one. Telling bursts apart by the idle time
 * costs nothing per answer: scheduling a check at every turn's end cost one connection ~3 µs per request.
 * With one or two connections open (`FEW_CONNECTIONS`: every server of the process counts, they share the
 * loop) answers are written at once, busy loop or not. With more the burst rule holds: at four connections
 * it read 1.03× of the limit's requests where writing at once read 0.93× (medians of 18 rows, BENCHMARKS.md),
 * and at 32 writing at once read ~20 % fewer.
 */
export class Turn {
  /** Answers wait for the burst's end. */
  #batching = false;
  /** The answers waiting. */
  #waiting: { flush(): void }[] = [];
  /** The loop's idle time when an answer was last written at once. */
  #idle = -1;
  /** Connections open. */
  #connections = 0;

  /** `idle`: how long the event loop has waited for I/O so far; `atEnd`: runs a function once the loop's turn ends. */
  constructor(
    private readonly idle: () => number = loopIdleTime,
    private readonly atEnd: (run: () => void) => unknown = atTurnEnd,
  ) {}

  /** A connection opened; `closed` when it closes. */
  opened(): void {
    this.#connections++;
  }

  closed(): void {
    this.#connections--;
  }

  get connections(): number {
    return this.#connections;
  }

  answer(input: { flush(): void }): void {
    if (this.#connections <= FEW_CONNECTIONS) return input.flush();
    if (!this.#batching) {
      const idle = this.idle();
      if (idle !== this.#idle) {
        this.#idle = idle;
        input.flush();
        return;
      }
    }
    this.#batching = true;
    this.#waiting.push(input);
    if (this.#waiting.length === 1) this.atEnd(this.#write);
  }

  readonly #write = (): void => {
    const inputs = this.#waiting;
    this.#waiting = [];
    this.#batching = inputs.length > 1;
    for (const input of inputs) input.flush();
  };
}

/** Up to this many connections open, answers are written at once. */
export const FEW_CONNECTIONS = 2;

/** Milliseconds the event loop has spent waiting for I/O: it moves only when the loop waits. */
function loopIdleTime(): number {
  return performance.nodeTiming.idleTime;
}
/** Node's own `setImmediate`, kept: a test that fakes timers must not hold every answer back. */
const atTurnEnd = setImmediate;
const turn = new Turn();

/** @internal Connections open to the servers of this process, as the adapter counts them. */
export function openConnections(): number {
  return turn.connections;
}

function onConnection(socket: Socket): void {
  turn.opened();
  socket.on("close", onSocketClose); // a socket closes once: `once` would add its wrapper to every connection
}

/** A connection closed: its requests still open were abandoned by their client. */
function onSocketClose(this: Socket): void {
  turn.closed();
  const open = (this as WithState)[SOCKET_STATE]?.open; // a connection that never sent a request has none
  if (open?.length) for (const input of [...open]) input.abandoned();
}

function onResponseDrain(this: WithInput<ServerResponse>): void {
  this[INPUT].drained();
}

function onBodyData(this: WithInput<IncomingMessage>, chunk: Buffer): void {
  this[INPUT].bodyData(chunk);
}

function onBodyEnd(this: WithInput<IncomingMessage>): void {
  this[INPUT].bodyEnd(true);
}

const tooLarge = (): BodyError => new BodyError("payloadTooLarge", "body too large");
const unreadable = (): BodyError => new BodyError("badRequest", "the request body could not be read");

/**
 * How much of a body over the limit is read and thrown away before the 413 goes out. A client that writes its
 * whole body before it reads (most do) would otherwise have its connection reset under it and see EPIPE or
 * ECONNRESET instead of the 413. Past this, the connection is closed after the 413.
 */
const DISCARD_LIMIT = 16 * 1024 * 1024;

/** Reads and drops the rest of a body, up to `bound` bytes; resolves at its end or at that bound. */
function discardRest(req: IncomingMessage, bound: number): Promise<void> {
  if (req.complete) return Promise.resolve();
  return new Promise((resolve) => {
    let discarded = 0;
    const onData = (chunk: Buffer): void => {
      discarded += chunk.length;
      if (discarded > bound) {
        req.pause();
        done();
      }
    };
    const done = (): void => {
      req.off("data", onData);
      req.off("end", done);
      req.off("error", done);
      req.off("close", done);
      resolve();
    };
    req.on("data", onData);
    req.on("end", done);
    req.on("error", done);
    req.on("close", done);
    req.resume();
  });
}
