/**
 * `mcpgen dev --http <port>`: a fixed address on 127.0.0.1 in front of the server, which listens on a port
 * of its own choosing and changes with every restart. Requests (and their SSE streams) are passed through
 * as they are; while a new server starts they wait; while the build is broken, or when the server went,
 * a POST gets 503 with a JSON-RPC error naming the problem. A 2025-era session does not survive a
 * restart: the new server answers its `Mcp-Session-Id` with 404, and the client initializes again, as the
 * protocol prescribes.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { ServerChild } from "./child.js";
import { DEV_ERROR } from "./stdio-front.js";

const LISTENING = /listening on (http:\/\/\S+)/;
const MAX_BODY = 4 * 1024 * 1024;

type State = { kind: "starting"; waiting: (() => void)[] } | { kind: "up"; child: ServerChild; target: URL } | { kind: "down"; reason: string };

export class HttpFront {
  private state: State = { kind: "starting", waiting: [] };
  private readonly server = http.createServer((req, res) => this.handle(req, res));
  private announced = new Map<ServerChild, (url: URL) => void>();

  async listen(port: number): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, "127.0.0.1", () => resolve());
    });
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/mcp`;
  }

  /** A line of a child's stderr: true if it was the child's "listening on" line (consumed here). */
  announce(child: ServerChild, line: string): boolean {
    const match = LISTENING.exec(line);
    const waiting = this.announced.get(child);
    if (!match || !waiting) return false;
    waiting(new URL(match[1]!));
    return true;
  }

  hold(): void {
    if (this.state.kind !== "starting") this.state = { kind: "starting", waiting: [] };
  }

  /** In-flight requests end when their child does (their upstream sockets close): see `relay`. */
  dropped(_reason: string): void {}

  /** Resolves once the child listens (or has gone: then the front is down). */
  async up(child: ServerChild): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const target = await Promise.race([
      new Promise<URL>((resolve) => this.announced.set(child, resolve)),
      child.exited.then(() => undefined),
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), 15_000))),
    ]);
    clearTimeout(timer);
    this.announced.delete(child);
    if (!target) {
      if (child.alive) await child.stop();
      return this.down("the server did not start (see its output above); it starts again on the next change");
    }
    const waiting = this.state.kind === "starting" ? this.state.waiting : [];
    this.state = { kind: "up", child, target };
    for (const go of waiting) go();
  }

  down(reason: string): void {
    const waiting = this.state.kind === "starting" ? this.state.waiting : [];
    this.state = { kind: "down", reason };
    for (const go of waiting) go();
  }

  async close(): Promise<void> {
    this.down("mcpgen dev is stopping");
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const state = this.state;
    if (state.kind === "starting") state.waiting.push(() => this.handle(req, res));
    else if (state.kind === "up") this.relay(req, res, state.target);
    else void this.refuse(req, res, state.reason);
  }

  private relay(req: http.IncomingMessage, res: http.ServerResponse, target: URL): void {
    const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      answer.once("error", () => res.destroy());
    });
    upstream.once("error", () => {
      if (!res.headersSent) jsonError(res, 503, null, "mcpgen dev: the server restarted (a file changed) while this request was in flight; send it again");
      else res.destroy();
    });
    res.once("close", () => upstream.destroy());
    req.pipe(upstream);
  }

  private async refuse(req: http.IncomingMessage, res: http.ServerResponse, reason: string): Promise<void> {
    let body = "";
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY) break;
      body += String(chunk);
    }
    let id: unknown = null;
    try {
      const parsed = JSON.parse(body) as { id?: unknown };
      if (typeof parsed.id === "string" || typeof parsed.id === "number") id = parsed.id;
    } catch {
      // not JSON: answered with id null
    }
    jsonError(res, 503, id, `mcpgen dev: ${reason}`);
  }
}

function jsonError(res: http.ServerResponse, status: number, id: unknown, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", id, error: { code: DEV_ERROR, message } }));
}
