/**
 * A real `redis-server` for tests, on loopback, on a free port, persisting nothing; installed by
 * `scripts/services.sh` (run by `npm test` and CI). Fails with a clear message when it is missing.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import net from "node:net";

export interface RedisServer {
  readonly url: string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let reply = "";
    socket.setTimeout(500, () => socket.destroy());
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      reply += chunk.toString();
      if (reply.includes("\r\n")) socket.end();
    });
    socket.on("close", () => resolve(reply.startsWith("+PONG")));
    socket.on("error", () => resolve(false));
  });
}

export async function startRedis(): Promise<RedisServer> {
  if (spawnSync("redis-server", ["--version"]).status !== 0) {
    throw new Error("redis-server is not installed: run `bash scripts/services.sh` (as root it installs Debian's redis-server), or install it and put it on PATH");
  }
  const port = await freePort();
  const child: ChildProcess = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: ["ignore", "ignore", "pipe"] });
  let exited = false;
  child.once("exit", () => (exited = true));
  const deadline = Date.now() + 10_000;
  while (!(await ping(port))) {
    if (exited || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`redis-server did not start on 127.0.0.1:${port} within 10 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (exited) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
