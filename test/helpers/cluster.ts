/**
 * Three (or `count`) instances of a generated fixture server (`--http --redis`) on loopback, sharing one
 * redis-server started for them, behind the stateless round-robin balancer; `stop()` ends all of it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { builtFixture } from "../runtime/helpers/e2e.js";
import { startRedis, type RedisServer } from "./redis.js";
import { roundRobin, type RoundRobin } from "./round-robin.js";
import { listeningUrl } from "./wait.js";

export interface Cluster {
  readonly redis: RedisServer;
  readonly balancer: RoundRobin;
  readonly instances: ChildProcess[];
  stop(): Promise<void>;
}

export async function startCluster(fixture = "cluster", count = 3): Promise<Cluster> {
  const redis = await startRedis();
  const { server } = builtFixture(fixture);
  const instances: ChildProcess[] = [];
  let balancer: RoundRobin | undefined;
  const stop = async (): Promise<void> => {
    await balancer?.close();
    await Promise.all(
      instances.map((child) => (child.exitCode === null && child.signalCode === null ? new Promise((resolve) => (child.once("exit", resolve), child.kill("SIGTERM"))) : undefined)),
    );
    await redis.stop();
  };
  try {
    const urls: string[] = [];
    for (let i = 0; i < count; i++) {
      const child = spawn(server.command, [...server.args, "--http", "--port", "0", "--redis", redis.url], { cwd: server.cwd, stdio: ["ignore", "ignore", "pipe"] });
      instances.push(child);
      urls.push(await listeningUrl(child));
    }
    balancer = await roundRobin(urls);
    return { redis, balancer, instances, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
