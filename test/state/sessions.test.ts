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
