/**
 * 2025-era sessions across three instances of one generated server (`--http --redis`) behind a stateless
 * round-robin balancer: a session opened on one instance is served by the others (restored from the shared
 * session store), change notifications reach the stream of a session wherever they are published, and a
 * DELETE on any instance ends the session on all of them. The client is the official SDK's.
 */
import type { ChildProcess } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startCluster, type Cluster } from "../helpers/cluster.js";
import type { RoundRobin } from "../helpers/round-robin.js";
import { until, within } from "../helpers/wait.js";
import { SseReader, type SseEvent } from "../runtime/http/helpers.js";

const [A, B, C] = [0, 1, 2];

let cluster: Cluster | undefined;
let balancer: RoundRobin;
let instances: ChildProcess[] = [];
/** The instance every request of the tests' clients goes to (unset: the balancer's rotation). */
let pin: number | undefined;
const clients: Client[] = [];

beforeAll(async () => {
  cluster = await startCluster();
  ({ balancer, instances } = cluster);
}, 30_000);

afterEach(async () => {
  pin = undefined;
  balancer.stick(undefined);
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
});

afterAll(async () => {
  await cluster?.stop();
});

/** An SDK client whose requests go to the pinned instance. */
async function connect(capabilities: Record<string, unknown> = {}): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${balancer.url}/mcp`), {
    fetch: (input, init) => {
      balancer.stick(pin);
      return fetch(input, init);
    },
  });
  const client = new Client({ name: "sessions-test", version: "1.0.0" }, { capabilities });
  clients.push(client);
  await within(client.connect(transport), { what: "the SDK client's connection" });
  return { client, transport };
}

/** Calls `touch` on `instance`; the process id of the instance that answered (checked against the balancer's log). */
async function touch(client: Client, instance: number, uri = "mem://elsewhere"): Promise<string> {
  pin = instance;
  const before = balancer.log.length;
  const result = await within(client.callTool({ name: "touch", arguments: { uri } }), { what: `touch on instance ${instance}` });
  // The SDK's standalone GET stream may (re)connect meanwhile; the call is the one POST.
  expect(balancer.log.slice(before).filter((entry) => entry.method === "POST").map((entry) => entry.upstream)).toEqual([instance]);
  const text = (result.content as { text: string }[])[0]?.text ?? "";
  return text.slice(text.lastIndexOf(" ") + 1);
}

/** A raw 2025-era request in session `id`, on `instance`: its HTTP status. */
async function statusOn(instance: number, id: string, version: string): Promise<number> {
  balancer.stick(instance);
  const response = await fetch(`${balancer.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": id, "mcp-protocol-version": version },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  await response.body?.cancel();
  return response.status;
}

const V = "2025-11-25";
type Json = Record<string, unknown>;

/** A raw 2025-era POST on `instance`, in session `id` once there is one. */
async function postOn(instance: number, body: Json, id?: string): Promise<Response> {
  balancer.stick(instance);
  return fetch(`${balancer.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": V, ...(id && { "mcp-session-id": id }) },
    body: JSON.stringify(body),
  });
}

/** The JSON-RPC response in a POST's answer (JSON or SSE). */
async function answerOf(response: Response): Promise<Json> {
  const text = await response.text();
  const messages = (response.headers.get("content-type") ?? "").startsWith("text/event-stream")
    ? text.split("\n").filter((line) => line.startsWith("data:")).map((line) => JSON.parse(line.slice(5)) as Json)
    : [JSON.parse(text) as Json];
  const answer = messages.find((message) => message.id !== undefined && message.method === undefined);
  if (!answer) throw new Error(`no response in ${text}`);
  return answer;
}

/** A session opened with raw requests on `instance`: its id. */
async function openOn(instance: number): Promise<string> {
  const response = await postOn(instance, { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: V, capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
  const id = response.headers.get("mcp-session-id")!;
  await response.text();
  expect((await postOn(instance, { jsonrpc: "2.0", method: "notifications/initialized" }, id)).status).toBe(202);
  return id;
}

/** The session's standalone stream, opened on `instance` (resuming after `lastEventId`). */
async function streamOn(instance: number, id: string, lastEventId?: string): Promise<SseReader> {
  balancer.stick(instance);
  const response = await fetch(`${balancer.url}/mcp`, {
    headers: { accept: "text/event-stream", "mcp-session-id": id, "mcp-protocol-version": V, ...(lastEventId && { "last-event-id": lastEventId }) },
  });
  expect(response.status).toBe(200);
  return new SseReader(response.body as ReadableStream<Uint8Array>);
}

/** Reads `reader` until `done` holds for what it read (bounded); what it read, priming events left out. */
async function readUntil(reader: SseReader, done: (messages: Json[]) => boolean): Promise<{ messages: Json[]; events: SseEvent[] }> {
  const messages: Json[] = [];
  const events: SseEvent[] = [];
  const deadline = Date.now() + 10_000;
  while (!done(messages)) {
    if (Date.now() > deadline) throw new Error(`the stream did not deliver what was awaited; it had ${JSON.stringify(messages)}`);
    const event = await reader.next(Math.max(1, deadline - Date.now()));
    if (event === undefined) throw new Error(`the stream ended; it had ${JSON.stringify(messages)}`);
    if (event.data === "") continue;
    events.push(event);
    messages.push(JSON.parse(event.data) as Json);
  }
  return { messages, events };
}

const updated = (messages: Json[]) => messages.filter((m) => m.method === "notifications/resources/updated").map((m) => (m.params as Json).uri);

describe("2025-era sessions on several instances sharing Redis", () => {
  it("serves a session opened on A from B and C", async () => {
    pin = A;
    const { client, transport } = await connect();
    expect(transport.sessionId).toBeDefined();
    expect(await touch(client, B)).toBe(String(instances[B]!.pid));
    expect(await touch(client, C)).toBe(String(instances[C]!.pid));
    expect(await touch(client, A)).toBe(String(instances[A]!.pid));
    // Restored with what initialize established: B still knows the client's protocol version.
    pin = B;
    expect((await within(client.listTools(), { what: "tools/list on B" })).tools.map((tool) => tool.name)).toContain("touch");
  });

  it("takes the answer to an elicitation asked on A from a POST that lands on B", async () => {
    pin = A;
    const { client } = await connect({ elicitation: {} });
    client.setRequestHandler(ElicitRequestSchema, async () => {
      pin = B; // the client's answer goes to another instance than the one waiting
      return { action: "accept", content: { name: "Ada" } };
    });
    const before = balancer.log.length;
    const result = await within(client.callTool({ name: "ask_name", arguments: {} }), { what: "the tool waiting for the elicitation", timeoutMs: 5000 });
    expect((result.content as { text: string }[])[0]?.text).toBe(`Hello, Ada, from ${instances[A]!.pid}`);
    // The call went to A, the answer to B.
    expect(balancer.log.slice(before).filter((entry) => entry.method === "POST").map((entry) => entry.upstream)).toEqual([A, B]);
  });

  it("delivers a resource update published on C to the subscriber whose stream is on A", async () => {
    pin = A;
    const { client } = await connect();
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updates.push(notification.params.uri));
    // The SDK opens the standalone GET stream once initialized; it is on A.
    await until(() => balancer.log.some((entry) => entry.method === "GET" && entry.upstream === A), { what: "the standalone stream on A" });
    await within(client.subscribeResource({ uri: "mem://counter" }), { what: "resources/subscribe on A" });
    expect(await touch(client, C, "mem://counter")).toBe(String(instances[C]!.pid));
    await until(() => updates.includes("mem://counter"), { what: "the resource update on the stream on A" });
  });

  it("resumes on B a standalone stream cut on A with no event lost or repeated, subscriptions made on C included", async () => {
    const id = await openOn(A);
    const onA = await streamOn(A, id);
    for (const uri of ["mem://counter", "mem://marker"]) {
      expect((await answerOf(await postOn(C, { jsonrpc: "2.0", id: 1, method: "resources/subscribe", params: { uri } }, id))).error).toBeUndefined();
    }
    const touch = async (instance: number, uri: string) => answerOf(await postOn(instance, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "touch", arguments: { uri } } }, id));
    await touch(B, "mem://counter");
    const before = await readUntil(onA, (messages) => updated(messages).length === 1);
    await onA.cancel();
    // Made while no stream is open: A, which held it, keeps them in the event store.
    await touch(C, "mem://counter");
    await touch(B, "mem://counter");
    const onB = await streamOn(B, id, before.events[0]!.id);
    const resumed = await readUntil(onB, (messages) => updated(messages).length === 2);
    // Published on A after the move: it reaches B's stream. The marker comes last; nothing may come twice.
    await touch(A, "mem://marker");
    const after = await readUntil(onB, (messages) => updated(messages).includes("mem://marker"));
    expect([...updated(resumed.messages), ...updated(after.messages)]).toEqual(["mem://counter", "mem://counter", "mem://marker"]);
    await onB.cancel();
  });

  it("delivers the status of a task that ran on B to the session's stream on A, and its result to C", async () => {
    const id = await openOn(A);
    const onA = await streamOn(A, id);
    const created = await answerOf(await postOn(B, { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "job", arguments: { label: "s1" }, task: { ttl: 60_000 } } }, id));
    const taskId = ((created.result as Json).task as Json).taskId as string;
    // The task belongs to the session, whichever instance serves it.
    expect(((await answerOf(await postOn(C, { jsonrpc: "2.0", id: 4, method: "tasks/get", params: { taskId } }, id))).result as Json).status).toBe("working");
    expect(((await answerOf(await postOn(B, { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "release", arguments: { label: "s1" } } }, id))).result as Json).content).toEqual([
      { type: "text", text: "true" },
    ]);
    const statuses = await readUntil(onA, (messages) => messages.some((m) => m.method === "notifications/tasks/status" && (m.params as Json).status === "completed"));
    expect(statuses.messages.every((m) => (m.params as Json).taskId === taskId)).toBe(true);
    const result = await answerOf(await postOn(C, { jsonrpc: "2.0", id: 6, method: "tasks/result", params: { taskId } }, id));
    expect((result.result as Json).content).toEqual([{ type: "text", text: `job s1 done on ${instances[B]!.pid}` }]);
    await onA.cancel();
  });

  it("ends the session everywhere on a DELETE that lands on B", async () => {
    pin = A;
    const { client, transport } = await connect();
    const id = transport.sessionId!;
    const version = transport.protocolVersion!;
    await touch(client, C); // C holds a restored copy too
    pin = B;
    await within(transport.terminateSession(), { what: "DELETE on B" });
    expect(await statusOn(B, id, version)).toBe(404);
    // A and C drop their copies when they hear of the end on the bus (bounded wait), then answer 404.
    for (const instance of [A, C]) {
      const deadline = Date.now() + 3000;
      let status = await statusOn(instance, id, version);
      while (status !== 404 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        status = await statusOn(instance, id, version);
      }
      expect(status).toBe(404);
    }
  });

  it("answers 404 for a session id no instance ever opened", async () => {
    for (const instance of [A, B, C]) expect(await statusOn(instance, crypto.randomUUID(), "2025-06-18")).toBe(404);
  });
});
