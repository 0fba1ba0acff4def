/** Tasks over Streamable HTTP (2026-07-28): `Mcp-Name` carries the task id of tasks/get, tasks/update and tasks/cancel. */
import { afterEach, describe, expect, it } from "vitest";
import { createHttpHandler, createServer, type HttpHandler } from "../../packages/runtime/src/index.js";
import { assertServerMessage } from "../runtime/helpers/spec.js";
import { modernPost } from "../helpers/wait.js";
import { registry, release } from "./fixture.js";

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};

const handlers: HttpHandler[] = [];
afterEach(async () => {
  for (const handler of handlers.splice(0)) await handler.close();
});

async function post(handler: HttpHandler, method: string, params: Record<string, unknown>, name: string | undefined): Promise<{ status: number; message: Record<string, unknown> }> {
  const response = await handler.fetch(
    new Request("http://127.0.0.1/mcp", modernPost(method, params, name, META)),
  );
  const message = (await response.json()) as Record<string, unknown>;
  assertServerMessage(message, "2026-07-28");
  return { status: response.status, message };
}

describe("tasks over HTTP", () => {
  it("checks Mcp-Name against params.taskId on tasks/* requests", async () => {
    const handler = createHttpHandler(createServer(registry));
    handlers.push(handler);
    const created = await post(handler, "tools/call", { name: "job", arguments: { label: "http-1" } }, "job");
    const taskId = (created.message.result as { taskId: string }).taskId;
    expect(typeof taskId).toBe("string");
    for (const method of ["tasks/get", "tasks/cancel", "tasks/update"]) {
      for (const name of [undefined, "another-task"]) {
        const refused = await post(handler, method, { taskId, inputResponses: {} }, name);
        expect(refused.status).toBe(400);
        expect(refused.message.error).toMatchObject({ code: -32020 });
      }
    }
    const got = await post(handler, "tasks/get", { taskId }, taskId);
    expect(got.message.result).toMatchObject({ taskId, status: "working" });
    expect((await post(handler, "tasks/cancel", { taskId }, taskId)).message.result).toMatchObject({ resultType: "complete" });
    release("http-1");
  });
});
