/**
 * A small loopback load balancer for multi-instance tests: each request goes to the next upstream in turn
 * (or to the one a test pins with `route`), bodies and SSE responses streamed both ways. It keeps no state
 * of its own, like a load balancer without sticky sessions.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface RoundRobin {
  readonly url: string;
  /** Which upstream (index) each request went to, in order of arrival. */
  readonly log: { method: string; upstream: number }[];
  /** Sends the next request to `upstream` instead of the next in turn. */
  route(upstream: number): void;
  /** Sends every request to `upstream` until called again (`undefined`: back to the rotation). */
  stick(upstream: number | undefined): void;
  /** Leaves `upstream` out of the rotation (it was stopped). */
  remove(upstream: number): void;
  close(): Promise<void>;
}

export async function roundRobin(upstreams: readonly string[]): Promise<RoundRobin> {
  let next = 0;
  let pinned: number | undefined;
  let stuck: number | undefined;
  const down = new Set<number>();
  const log: { method: string; upstream: number }[] = [];
  const pick = (): number => {
    if (stuck !== undefined) return stuck;
    if (pinned !== undefined) {
      const chosen = pinned;
      pinned = undefined;
      return chosen;
    }
    for (let tries = 0; tries < upstreams.length; tries++) {
      const candidate = next++ % upstreams.length;
      if (!down.has(candidate)) return candidate;
    }
    throw new Error("no upstream left");
  };
  const server = http.createServer((request, response) => {
    const upstream = pick();
    log.push({ method: request.method ?? "", upstream });
    const target = new URL(request.url ?? "/", upstreams[upstream]);
    const forwarded = http.request(target, { method: request.method, headers: { ...request.headers, host: target.host } }, (reply) => {
      response.writeHead(reply.statusCode ?? 502, reply.headers);
      response.flushHeaders();
      reply.pipe(response);
    });
    forwarded.on("error", () => {
      if (!response.headersSent) response.writeHead(502).end();
      else response.destroy();
    });
    response.on("close", () => forwarded.destroy());
    request.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    route: (upstream) => void (pinned = upstream),
    stick: (upstream) => void (stuck = upstream),
    remove: (upstream) => void down.add(upstream),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
