/**
 * Three instances of one generated server (`--http --redis`) behind a stateless round-robin balancer,
 * sharing one redis-server: 2026-era requests, which carry their whole context, are served by whichever
 * instance they reach; tasks, their cancellation and change notifications cross instances through Redis.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCluster, type Cluster } from "../helpers/cluster.js";
import type { RoundRobin } from "../helpers/round-robin.js";
import { ENVELOPE, modernPost, until, within } from "../helpers/wait.js";
import { builtFixture } from "../runtime/helpers/e2e.js";

const META = { ...ENVELOPE, "io.modelcontextprotocol/clientCapabilities": { elicitation: {}, extensions: { "io.modelcontextprotocol/tasks": {} } } };
const [A, B, C] = [0, 1, 2];

let cluster: Cluster | undefined;
let balancer: RoundRobin;
let instances: ChildProcess[] = [];

beforeAll(async () => {
  cluster = await startCluster();
  ({ balancer, instances } = cluster);
}, 30_000);

afterAll(async () => {
  await cluster?.stop();
});

type Message = { id?: unknown; method?: string; result?: Record<string, unknown>; error?: { code: number; message: string }; params?: Record<string, unknown> };

/** One 2026-era request through the balancer (to `instance` when given); its JSON-RPC response. */
async function request(method: string, params: Record<string, unknown>, { instance, name }: { instance?: number | undefined; name?: string } = {}): Promise<Message> {
  if (instance !== undefined) balancer.route(instance);
  const before = balancer.log.length;
  const response = await fetch(`${balancer.url}/mcp`, modernPost(method, params, name, META));
  if (instance !== undefined) expect(balancer.log[before]?.upstream).toBe(instance);
  const text = await response.text();
  const messages = (response.headers.get("content-type") ?? "").startsWith("text/event-stream")
    ? text.split("\n").filter((line) => line.startsWith("data:")).map((line) => JSON.parse(line.slice(5)) as Message)
    : [JSON.parse(text) as Message];
  const answer = messages.find((message) => message.id === 1);
  if (!answer) throw new Error(`no response to ${method}: ${text}`);
  return answer;
}

const call = async (tool: string, args: Record<string, unknown>, instance?: number) => request("tools/call", { name: tool, arguments: args }, { instance, name: tool });
const text = (message: Message) => ((message.result?.content as { text: string }[] | undefined) ?? [])[0]?.text;
const getTask = (taskId: string, instance?: number) => request("tasks/get", { taskId }, { instance, name: taskId });

/** Polls `tasks/get` through the balancer (any instance) until the task reaches `status`. */
async function taskReaches(taskId: string, status: string, timeoutMs = 5_000): Promise<Record<string, unknown>> {
  let last: Record<string, unknown> | undefined;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    last = (await getTask(taskId)).result;
    if (last?.status === status) return last;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`task ${taskId} did not reach ${status} within ${timeoutMs} ms: ${JSON.stringify(last)}`);
}

/** Opens a listen stream on `instance`; collects what it delivers. */
async function listen(instance: number, uris: string[], taskIds?: string[]): Promise<{ notifications: Message[]; close(): void }> {
  balancer.route(instance);
  const controller = new AbortController();
  const response = await fetch(`${balancer.url}/mcp`, {
    method: "POST",
    signal: controller.signal,
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "subscriptions/listen" },
    body: JSON.stringify({ jsonrpc: "2.0", id: "listen", method: "subscriptions/listen", params: { _meta: META, notifications: { resourceSubscriptions: uris, ...(taskIds && { taskIds }) } } }),
  });
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const notifications: Message[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  void (async () => {
    let buffer = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += value;
        let cut: number;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const event = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const data = event.split("\n").find((line) => line.startsWith("data:"));
          if (data) notifications.push(JSON.parse(data.slice(5)) as Message);
        }
      }
    } catch {
      // aborted by close()
    }
  })();
  await until(() => notifications.some((n) => n.method === "notifications/subscriptions/acknowledged"), { what: "the listen acknowledgment" });
  return { notifications, close: () => controller.abort() };
}

describe("several instances sharing Redis", () => {
  it("spreads requests over all three instances", async () => {
    const served = new Set<number>();
    for (let i = 0; i < 3; i++) {
      const before = balancer.log.length;
      expect(text(await call("release", { label: "nobody" }))).toBe("false");
      served.add(balancer.log[before]!.upstream);
    }
    expect([...served].sort()).toEqual([A, B, C]);
  });

  it("runs a task started on A, polled on B, its result read on C", async () => {
    const created = await call("job", { label: "t1" }, A);
    expect(created.result).toMatchObject({ resultType: "task", status: "working" });
    const taskId = created.result!.taskId as string;
    expect((await getTask(taskId, B)).result).toMatchObject({ taskId, status: "working" });
    expect(text(await call("release", { label: "t1" }, A))).toBe("true");
    await taskReaches(taskId, "completed");
    const done = (await getTask(taskId, C)).result!;
    expect(done).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: `job t1 done on ${instances[A]!.pid}` }] } });
  });

  it("stops the handler on A when its task is cancelled through B", async () => {
    const taskId = (await call("job", { label: "t2" }, A)).result!.taskId as string;
    expect((await request("tasks/cancel", { taskId }, { instance: B, name: taskId })).error).toBeUndefined();
    expect((await getTask(taskId, C)).result).toMatchObject({ status: "cancelled" });
    const deadline = Date.now() + 5_000;
    while (text(await call("was_aborted", { label: "t2" }, A)) !== "true") {
      if (Date.now() > deadline) throw new Error("the handler on A never saw the cancellation");
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  });

  it("takes the input a task on A asks for from a tasks/update that lands on B", async () => {
    const taskId = (await call("ask_later", { label: "t3" }, A)).result!.taskId as string;
    expect(text(await call("release", { label: "t3" }, A))).toBe("true");
    const asking = await taskReaches(taskId, "input_required");
    const [key, ask] = Object.entries(asking.inputRequests as Record<string, { method: string }>)[0]!;
    expect(ask.method).toBe("elicitation/create");
    const update = await request("tasks/update", { taskId, inputResponses: { [key]: { action: "accept", content: { name: "Ada" } } } }, { instance: B, name: taskId });
    expect(update.error).toBeUndefined();
    await taskReaches(taskId, "completed");
    expect((await getTask(taskId, C)).result).toMatchObject({ result: { content: [{ type: "text", text: `Hello, Ada, from ${instances[A]!.pid}` }] } });
  });

  it("pushes each change of a task running on A to a listen stream on B that watches it, and to no other", async () => {
    const taskId = (await call("job", { label: "t4" }, A)).result!.taskId as string;
    const watching = await listen(B, [], [taskId]);
    const other = await listen(C, [], [crypto.randomUUID()]);
    try {
      expect(watching.notifications[0]?.params?.notifications).toEqual({ resourceSubscriptions: [], taskIds: [taskId] });
      expect(text(await call("release", { label: "t4" }, A))).toBe("true");
      await until(() => watching.notifications.some((n) => n.method === "notifications/tasks" && n.params?.status === "completed"), { what: "the completed task on B", timeoutMs: 5_000 });
      const done = watching.notifications.find((n) => n.method === "notifications/tasks" && n.params?.status === "completed")!;
      // The task as tasks/get shows it, naming the listen request it answers to.
      expect(done.params).toMatchObject({ taskId, result: { content: [{ type: "text", text: `job t4 done on ${instances[A]!.pid}` }] }, _meta: { "io.modelcontextprotocol/subscriptionId": "listen" } });
      expect(done.params).not.toHaveProperty("resultType");
      expect(other.notifications.filter((n) => n.method === "notifications/tasks")).toEqual([]);
    } finally {
      watching.close();
      other.close();
    }
  });

  it("delivers a resource update made on C to listen streams on A and B, once each", async () => {
    const onA = await listen(A, ["mem://counter", "mem://marker"]);
    const onB = await listen(B, ["mem://counter", "mem://marker"]);
    try {
      await call("touch", { uri: "mem://counter" }, C);
      await call("touch", { uri: "mem://marker" }, C);
      for (const stream of [onA, onB]) {
        await until(() => stream.notifications.some((n) => n.params?.uri === "mem://marker"), { what: "the marker update", timeoutMs: 5_000 });
        // Published in order on C's one connection: everything for mem://counter came before the marker.
        expect(stream.notifications.filter((n) => n.method === "notifications/resources/updated").map((n) => n.params?.uri)).toEqual(["mem://counter", "mem://marker"]);
      }
    } finally {
      onA.close();
      onB.close();
    }
  });

  it("fails a task whose instance was killed mid-run, once its lease lapses, and keeps serving", async () => {
    const taskId = (await call("job", { label: "t3" }, A)).result!.taskId as string;
    const killed = new Promise((resolve) => instances[A]!.once("exit", resolve));
    instances[A]!.kill("SIGKILL");
    await within(killed, { what: "instance A's exit" });
    balancer.remove(A);
    const failed = await taskReaches(taskId, "failed", 20_000);
    expect(failed).toMatchObject({ taskId, status: "failed", statusMessage: "The server instance running this task stopped" });
    expect(text(await call("release", { label: "t3" }))).toBe("false");
  }, 30_000);
});

describe("without Redis configured", () => {
  it("loads no Redis code, and a wrong URL stops the start with a clear message", async () => {
    const { server } = builtFixture("cluster");
    // A resolve hook that reports every module the server loads from its state/ folder or @redis/client.
    const hook = `data:text/javascript,${encodeURIComponent(
      `import { register } from "node:module"; register("data:text/javascript,${encodeURIComponent(
        `export async function resolve(s, c, next) { const r = await next(s, c); if (/redis|\\/state\\//.test(r.url)) process.stderr.write("LOADED " + r.url + "\\n"); return r; }`,
      )}");`,
    )}`;
    const run = (args: string[], env: NodeJS.ProcessEnv = {}) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(server.command, ["--import", hook, ...server.args, ...args], { cwd: server.cwd, stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, REDIS_URL: "", ...env } });
        let stderr = "";
        child.stderr.on("data", (chunk) => (stderr += String(chunk)));
        child.on("exit", (code) => resolve({ code, stderr }));
        child.stdin.end(); // stdio server: end of input stops it
      });
    const plain = await run([]);
    expect(plain.code).toBe(0);
    expect(plain.stderr).not.toMatch(/LOADED/);
    const unreachable = await run([], { REDIS_URL: "redis://user:secret@127.0.0.1:1" });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/cannot connect to Redis at redis:\/\/user:\*\*\*@127\.0\.0\.1:1/);
    expect(unreachable.stderr).toMatch(/LOADED .*state\/redis\.js/);
  }, 20_000);
});
