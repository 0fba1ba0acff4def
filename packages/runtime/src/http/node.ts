/**
 * The `node:http` adapter: `serve(server, { host, port })`. It talks to the transport directly (no
 * Request/Response objects on the way), binds 127.0.0.1 unless told otherwise, and bounds how long a client
 * may take to send its request (slow bodies cannot pin sockets forever).
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Server } from "../server.js";
import { LOOPBACK_HOSTS, resolveHttpOptions, type HttpOptions } from "./options.js";
import { BodyError, HttpTransport, type HttpInput, type HttpStats } from "./transport.js";
import type { HttpOutput } from "./output.js";

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

export async function serve(server: Server, options: ServeOptions = {}): Promise<HttpServerHandle> {
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? 3000;
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const allowedHosts = options.allowedHosts ?? defaultHosts(host);
  const transport = new HttpTransport(server, resolveHttpOptions({ ...options, allowedHosts }));

  const http = createHttpServer(
    {
      requestTimeout: requestTimeoutMs,
      headersTimeout: Math.min(requestTimeoutMs, 60_000),
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 5000,
      connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(requestTimeoutMs / 4))),
    },
    (req, res) => {
      let open = responding.get(req.socket);
      if (!open) responding.set(req.socket, (open = new Set()));
      open.add(res);
      const input = new NodeInput(req, res, open, idle);
      res.on("close", input.closed);
      const output = transport.handle(input);
      if (output instanceof Promise) output.then(input.answer, input.fail);
      else write(res, output);
    },
  );
  // Responses not yet finished, per connection, and what to do once there are none left.
  const responding = new WeakMap<Socket, Set<ServerResponse>>();
  const idle = new WeakMap<Socket, () => void>();
  http.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    if (idle.has(socket)) return; // answered (or about to be) already
    const status =
      error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? "408 Request Timeout" : error.code === "HPE_HEADER_OVERFLOW" ? "431 Request Header Fields Too Large" : "400 Bad Request";
    const refuse = (): void => {
      if (socket.writable && !socket.writableEnded) socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      else socket.destroy();
    };
    idle.set(socket, refuse);
    const open = [...(responding.get(socket) ?? [])];
    if (open.length === 0) return refuse();
    // The error is about a request still arriving (its body broke off or took too long): answer it only if no
    // byte of any response went out yet (else the bytes would land inside a response), as Node itself does.
    if (open.some((res) => !res.req.complete)) return open.length === 1 && !open[0]?.headersSent ? refuse() : void socket.destroy();
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
        http.closeIdleConnections();
        setTimeout(() => http.closeAllConnections(), 1000).unref();
        await stopped;
      })()),
  };
}

/** Loopback names, plus the bound host itself when it is a specific one. */
function defaultHosts(host: string): string[] {
  const hosts = [...LOOPBACK_HOSTS];
  const name = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  if (!["0.0.0.0", "[::]", "::"].includes(host) && !hosts.includes(name.toLowerCase())) hosts.push(name.toLowerCase());
  return hosts;
}

/**
 * One request and its response, as the transport sees them, with the response's one `close` listener: it
 * counts the connection's unfinished responses down and tells the transport's disconnect listeners (a
 * `once` wrapper for each of those cost more than the listener itself).
 */
class NodeInput implements HttpInput {
  readonly method: string;
  readonly path: string;
  /** Told when the client goes away before the response is complete. */
  #disconnect: (() => void)[] | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    /** The connection's responses not yet finished (this one among them). */
    private readonly open: Set<ServerResponse>,
    private readonly idle: WeakMap<Socket, () => void>,
  ) {
    const url = req.url ?? "/";
    const query = url.indexOf("?");
    this.method = req.method ?? "GET";
    this.path = query === -1 ? url : url.slice(0, query);
  }

  header = (name: string): string | undefined => {
    const value = this.req.headers[name];
    return value === undefined ? undefined : Array.isArray(value) ? value.join(", ") : value;
  };

  text(limit: number): Promise<string> {
    return readBody(this.req, limit);
  }

  onDisconnect(listener: () => void): void {
    (this.#disconnect ??= []).push(listener);
  }

  /** The response's `close`: the connection has one response fewer, and an unfinished one was abandoned. */
  readonly closed = (): void => {
    const { res, open } = this;
    open.delete(res);
    if (open.size === 0) this.idle.get(this.req.socket)?.();
    if (this.#disconnect && !res.writableFinished) for (const listener of this.#disconnect) listener();
  };

  readonly answer = (output: HttpOutput): void => write(this.res, output);

  readonly fail = (): void => fail(this.res);
}

/**
 * How much of a body over the limit is read and thrown away before the 413 goes out. A client that writes its
 * whole body before it reads (most do) would otherwise have its connection reset under it and see EPIPE or
 * ECONNRESET instead of the 413. Past this, the connection is closed after the 413.
 */
const DISCARD_LIMIT = 16 * 1024 * 1024;

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const tooLarge = (bound: number): Promise<never> => discardRest(req, bound).then(() => Promise.reject(new BodyError("payloadTooLarge", "body too large")));
  const length = req.headers["content-length"];
  if (length !== undefined && Number(length) > limit) {
    // Nothing read yet; a body that will be cut off anyway is not read at all.
    if (Number(length) > limit + DISCARD_LIMIT) return Promise.reject(new BodyError("payloadTooLarge", "body too large"));
    return tooLarge(limit + DISCARD_LIMIT);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        tooLarge(DISCARD_LIMIT).catch(reject);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer).toString("utf8") : Buffer.concat(chunks, size).toString("utf8"));
    };
    const onError = (): void => {
      cleanup();
      reject(new BodyError("badRequest", "the request body could not be read"));
    };
    const cleanup = (): void => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("aborted", onError);
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("aborted", onError);
  });
}

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

function write(res: ServerResponse, output: HttpOutput): void {
  if (res.destroyed) {
    output.stream?.cancel();
    return;
  }
  if (output.status === 413 && !res.req.complete) res.shouldKeepAlive = false; // the rest of the body was not read
  const stream = output.stream;
  if (!stream) {
    const body = output.body;
    if (body !== undefined) output.headers["content-length"] = String(Buffer.byteLength(body));
    res.writeHead(output.status, output.headers);
    res.end(body);
    return;
  }
  res.writeHead(output.status, output.headers);
  // Headers leave with the first events when some are ready (one write per answer); else at once, so the
  // client sees its stream open.
  if (!stream.buffered) res.flushHeaders();
  res.on("drain", () => stream.drained());
  res.once("close", () => {
    if (!res.writableFinished) stream.cancel();
  });
  stream.attach({
    write: (chunk) => res.write(chunk),
    end: (chunk) => res.end(chunk),
  });
}

function fail(res: ServerResponse): void {
  if (res.headersSent) res.destroy();
  else {
    res.writeHead(500, { "content-type": "application/json" });
    res.end('{"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error"}}');
  }
}
