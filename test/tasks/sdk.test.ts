/**
 * The official MCP SDK client (v1, experimental tasks API) against tasks of the 2025-11-25 form, over an
 * in-process transport into the core; every message the server sends is checked against the spec schema.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolResultSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { createServer, type Connection, type Server } from "../../packages/runtime/src/index.js";
import { assertServerMessage } from "../runtime/helpers/spec.js";
import { registry, release, until, waiting } from "./fixture.js";

/** Hands the client's messages to a core connection and its answers (and notifications) back. */
class CoreTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly conn: Connection;

  constructor(server: Server) {
    this.conn = server.connect({ send: (line) => this.deliver(line) });
  }

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    // Not awaited: tasks/result waits for the task, while the client goes on sending.
    void Promise.resolve(this.conn.handle(JSON.parse(JSON.stringify(message)))).then((reply) => {
      if (reply !== undefined) this.deliver(reply);
    });
  }

  async close(): Promise<void> {
    await this.conn.close();
    this.onclose?.();
  }

  private deliver(line: string): void {
    const message = JSON.parse(line) as JSONRPCMessage;
    assertServerMessage(message, "2025-11-25");
    this.onmessage?.(message);
  }
}

const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

async function connect(server: Server): Promise<Client> {
  const client = new Client({ name: "sdk-tasks", version: "1.0.0" }, { capabilities: {} });
  clients.push(client);
  await client.connect(new CoreTransport(server));
  return client;
}

describe("the official SDK client's experimental tasks API", () => {
  it("callToolStream: taskCreated, then the tool's result; getTask, listTasks, getTaskResult agree", async () => {
    const client = await connect(createServer(registry, { tasks: { pollIntervalMs: 10 } }));
    await client.listTools(); // the client learns which tools run as tasks
    const stream = client.experimental.tasks.callToolStream({ name: "job", arguments: { label: "sdk-1" } });
    const first = await stream.next(); // the generator sends the request when first asked
    const types: string[] = [first.value?.type ?? "none"];
    let taskId = first.value?.type === "taskCreated" ? first.value.task.taskId : "";
    await until(() => (waiting("sdk-1") ? true : undefined));
    release("sdk-1");
    let text = "";
    for await (const message of stream) {
      types.push(message.type);
      if (message.type === "taskCreated") taskId = message.task.taskId;
      if (message.type === "result") text = (message.result.content as { text: string }[])[0]?.text ?? "";
    }
    expect(types[0]).toBe("taskCreated");
    expect(types.at(-1)).toBe("result");
    expect(text).toBe("job sdk-1 done");
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe("completed");
    expect((await client.experimental.tasks.listTasks()).tasks.map((task) => task.taskId)).toContain(taskId);
    const payload = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
    expect((payload.content as { text: string }[])[0]?.text).toBe("job sdk-1 done");
  });

  it("cancelTask ends a running task as cancelled", async () => {
    const client = await connect(createServer(registry, { tasks: { pollIntervalMs: 10 } }));
    await client.listTools();
    const stream = client.experimental.tasks.callToolStream({ name: "must", arguments: { label: "sdk-2" } });
    const first = await stream.next();
    expect(first.value?.type).toBe("taskCreated");
    const taskId = first.value?.type === "taskCreated" ? first.value.task.taskId : "";
    await until(() => (waiting("sdk-2") ? true : undefined));
    expect((await client.experimental.tasks.cancelTask(taskId)).status).toBe("cancelled");
    expect((await client.experimental.tasks.getTask(taskId)).status).toBe("cancelled");
    await stream.return(undefined);
  });
});
