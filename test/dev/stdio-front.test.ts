// The stdio front on its own: what the client is told when servers come and go (fake servers, no processes).
import { describe, expect, it } from "vitest";
import type { ServerChild } from "../../dist/dev/child.js";
import { DEV_ERROR, StdioFront } from "../../dist/dev/stdio-front.js";

/** A stand-in for a server process: records what it is sent; `reply` plays a line it prints. */
function fakeServer() {
  const sent: unknown[] = [];
  let toFront: (line: string) => void = () => {};
  const child = {
    send: (line: string) => sent.push(JSON.parse(line)),
    onLine: (handler: (line: string) => void) => (toFront = handler),
    exited: new Promise(() => {}),
  } as unknown as ServerChild;
  return { child, sent, reply: (message: unknown) => toFront(JSON.stringify(message)) };
}

function setUp() {
  const client: Record<string, unknown>[] = [];
  const front = new StdioFront((line) => client.push(JSON.parse(line) as Record<string, unknown>));
  const send = (message: unknown) => front.fromClient(JSON.stringify(message));
  return { front, client, send };
}

const initialize = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } } };

describe("the stdio front of mcpgen dev", () => {
  it("holds requests until the first server is up, then relays both ways", () => {
    const { front, client, send } = setUp();
    send(initialize);
    const a = fakeServer();
    expect(a.sent).toEqual([]);
    front.up(a.child);
    expect(a.sent).toEqual([initialize]);
    a.reply({ jsonrpc: "2.0", id: 0, result: { capabilities: {} } });
    expect(client).toEqual([{ jsonrpc: "2.0", id: 0, result: { capabilities: {} } }]);
  });

  it("answers a request in flight when its server goes, instead of leaving it hanging", () => {
    const { front, client, send } = setUp();
    const a = fakeServer();
    front.up(a.child);
    send({ jsonrpc: "2.0", id: "slow", method: "tools/call", params: { name: "wait" } });
    send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    a.reply({ jsonrpc: "2.0", id: 2, result: { tools: [] } });
    front.hold();
    front.dropped("the server restarted");
    expect(client).toEqual([
      { jsonrpc: "2.0", id: 2, result: { tools: [] } },
      { jsonrpc: "2.0", id: "slow", error: { code: DEV_ERROR, message: "mcpgen dev: the server restarted" } },
    ]);
  });

  it("answers every request with the build problem while the build is broken, queued ones included", () => {
    const { front, client, send } = setUp();
    front.up(fakeServer().child);
    front.hold();
    send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(client).toEqual([]);
    front.down("the build is broken (1 problem): schemas/tools/a.json#: must be object");
    send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
    const message = "mcpgen dev: the build is broken (1 problem): schemas/tools/a.json#: must be object";
    expect(client).toEqual([
      { jsonrpc: "2.0", id: 1, error: { code: DEV_ERROR, message } },
      { jsonrpc: "2.0", id: 2, error: { code: DEV_ERROR, message } },
    ]);
  });

  it("replays the session to a new server, swallows its answer and tells the client what changed", () => {
    const { front, client, send } = setUp();
    const a = fakeServer();
    front.up(a.child);
    send(initialize);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    a.reply({ jsonrpc: "2.0", id: 0, result: { capabilities: { tools: { listChanged: true } } } });
    front.hold();
    send({ jsonrpc: "2.0", id: 5, method: "tools/list" }); // sent while the new server starts: waits for it
    const b = fakeServer();
    front.up(b.child);
    expect(b.sent).toEqual([
      { ...initialize, id: "mcpgen-dev:initialize" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 5, method: "tools/list" },
    ]);
    b.reply({ jsonrpc: "2.0", id: "mcpgen-dev:initialize", result: { capabilities: { tools: { listChanged: true }, prompts: { listChanged: true }, logging: {} } } });
    b.reply({ jsonrpc: "2.0", id: 5, result: { tools: [] } });
    expect(client.slice(1)).toEqual([
      { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
      { jsonrpc: "2.0", method: "notifications/prompts/list_changed" },
      { jsonrpc: "2.0", id: 5, result: { tools: [] } },
    ]);
  });

  it("answers a line that is not JSON with a parse error when no server is there to do it", () => {
    const { front, client } = setUp();
    front.down("the build is broken");
    front.fromClient("{not json");
    expect(client).toEqual([{ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }]);
  });
});
