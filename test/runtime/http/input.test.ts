/**
 * `ctx.elicit`, `ctx.sample` and `ctx.listRoots`: one handler API, two eras, every transport. 2025 era: real
 * server→client requests (stdio, and HTTP on the originating request's stream); 2026 era: `input_required`
 * results with a sealed `requestState`, so that a stateless server can resume. The official clients answer.
 */
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { assertRuntimeBuilt, FIXTURE_SERVER, RawServer } from "../helpers/e2e.js";
import { Harness, type Message } from "../helpers/core.js";
import { FetchTap, start, stopAll, type Json } from "./helpers.js";

const REQUEST = { timeout: 10_000 };
const closers: (() => Promise<unknown> | void)[] = [];
beforeAll(assertRuntimeBuilt);
afterEach(async () => {
  await Promise.allSettled(closers.splice(0).map((close) => close()));
  await stopAll();
});

const CAPS = { elicitation: {}, sampling: {}, roots: {} };
const NAME = { action: "accept", content: { name: "Alice" } };
const CAPITAL = { role: "assistant", content: { type: "text", text: "Paris" }, model: "test-model", stopReason: "endTurn" };
const COLOUR = { action: "accept", content: { colour: "teal" } };

function modernHarness(): Harness {
  return new Harness();
}

async function callModern(h: Harness, args: Json, extra: Json = {}, caps: Json = CAPS): Promise<Message> {
  return h.request("tools/call", { name: "ask", arguments: args, ...extra }, { "io.modelcontextprotocol/clientCapabilities": caps });
}

describe("2026 era: input_required rounds (core)", () => {
  it("asks, seals the state, and completes when the client retries with the answer", async () => {
    const h = modernHarness();
    const first = (await callModern(h, { what: "elicit" })).result as Json;
    expect(first.resultType).toBe("input_required");
    expect(first.inputRequests).toEqual({
      user_name: { method: "elicitation/create", params: { message: "What is your name?", requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } } },
    });
    expect(typeof first.requestState).toBe("string");
    const done = (await callModern(h, { what: "elicit" }, { inputResponses: { user_name: NAME, stray: { x: 1 } }, requestState: first.requestState })).result as Json;
    expect(done).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "Hello, Alice!" }] });
  });

  it("collects simultaneous asks into one round and keeps earlier answers across rounds", async () => {
    const h = modernHarness();
    const one = (await callModern(h, { what: "rounds" })).result as Json;
    expect(Object.keys(one.inputRequests as Json)).toEqual(["user_name", "capital"]);
    const two = (await callModern(h, { what: "rounds" }, { inputResponses: { user_name: NAME, capital: CAPITAL }, requestState: one.requestState })).result as Json;
    expect(Object.keys(two.inputRequests as Json)).toEqual(["colour"]);
    expect(two.requestState).not.toBe(one.requestState);
    const three = (await callModern(h, { what: "rounds" }, { inputResponses: { colour: COLOUR }, requestState: two.requestState })).result as Json;
    expect(three.content).toEqual([{ type: "text", text: "Alice / Paris / teal" }]);
  });

  it("asks again when an answer is missing or malformed", async () => {
    const h = modernHarness();
    const first = (await callModern(h, { what: "elicit" })).result as Json;
    for (const inputResponses of [{}, { wrong_key: NAME }, { user_name: { nonsense: true } }]) {
      const again = (await callModern(h, { what: "elicit" }, { inputResponses, requestState: first.requestState })).result as Json;
      expect(again.resultType).toBe("input_required");
      expect(Object.keys(again.inputRequests as Json)).toEqual(["user_name"]);
    }
  });

  it("refuses tampered state, state minted for other arguments, and malformed inputResponses", async () => {
    const h = modernHarness();
    const first = (await callModern(h, { what: "elicit" })).result as Json;
    const state = first.requestState as string;
    const tampered = await callModern(h, { what: "elicit" }, { inputResponses: { user_name: NAME }, requestState: `${state}-TAMPERED` });
    expect(tampered.error).toMatchObject({ code: -32602, message: expect.stringContaining("requestState") });
    const flipped = `${state.slice(0, 5)}${state[5] === "A" ? "B" : "A"}${state.slice(6)}`;
    expect((await callModern(h, { what: "elicit" }, { inputResponses: { user_name: NAME }, requestState: flipped })).error).toMatchObject({ code: -32602 });
    const otherArgs = await callModern(h, { what: "rounds" }, { inputResponses: { user_name: NAME }, requestState: state });
    expect(otherArgs.error).toMatchObject({ code: -32602 });
    const malformed = await callModern(h, { what: "elicit" }, { inputResponses: "yes please" });
    expect(malformed.error).toMatchObject({ code: -32602 });
  });

  it("does not ask a client for what it did not declare: MissingRequiredClientCapability (-32021)", async () => {
    const h = modernHarness();
    const reply = await callModern(h, { what: "sample" }, {}, { elicitation: {} });
    expect(reply.error).toEqual({
      code: -32021,
      message: 'The client did not declare the "sampling" capability, so it cannot answer sampling/createMessage',
      data: { requiredCapabilities: { sampling: {} } },
    });
  });
});

describe("2025 era over stdio: server→client requests", () => {
  it("sends elicitation/create and sampling/createMessage on stdout and resumes with the answers", async () => {
    const server = new RawServer(FIXTURE_SERVER);
    closers.push(() => server.kill());
    server.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: CAPS, clientInfo: { name: "raw", version: "1" } } });
    await server.next("2025-11-25", "initialize");
    server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    server.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "ask", arguments: { what: "rounds" } } });
    const asks = [await server.next("2025-11-25"), await server.next("2025-11-25")];
    expect(asks.map((m) => m.method).sort()).toEqual(["elicitation/create", "sampling/createMessage"]);
    for (const ask of asks) server.send({ jsonrpc: "2.0", id: ask.id, result: ask.method === "elicitation/create" ? NAME : CAPITAL });
    const colour = await server.next("2025-11-25");
    expect(colour).toMatchObject({ method: "elicitation/create", params: { message: "Favourite colour?" } });
    server.send({ jsonrpc: "2.0", id: colour.id, result: COLOUR });
    expect(await server.next("2025-11-25", "tools/call")).toMatchObject({ id: 2, result: { content: [{ text: "Alice / Paris / teal" }] } });

    // a client error reaches the handler as a ClientRequestError, and the call fails politely
    server.send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "ask", arguments: { what: "sample" } } });
    const ask = await server.next("2025-11-25");
    server.send({ jsonrpc: "2.0", id: ask.id, error: { code: -1, message: "User rejected sampling request" } });
    expect(await server.next("2025-11-25", "tools/call")).toMatchObject({ id: 3, result: { isError: true, content: [{ text: "User rejected sampling request" }] } });
  });
});

function answerAll(client: { setRequestHandler: ClientV1["setRequestHandler"] }): void {
  client.setRequestHandler(ElicitRequestSchema, async (request) =>
    (request.params as { message: string }).message.startsWith("Favourite") ? (COLOUR as never) : (NAME as never),
  );
  client.setRequestHandler(CreateMessageRequestSchema, async () => CAPITAL as never);
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: "file:///work", name: "work" }] }));
}

function answerAllV2(client: ClientV2): void {
  const on = client.setRequestHandler.bind(client) as (method: string, handler: (request: { params: Json }) => Promise<unknown>) => void;
  on("elicitation/create", async (request) => ((request.params.message as string).startsWith("Favourite") ? COLOUR : NAME));
  on("sampling/createMessage", async () => CAPITAL);
  on("roots/list", async () => ({ roots: [{ uri: "file:///work", name: "work" }] }));
}

describe("the same handler with the official clients", () => {
  it("v1 over HTTP (2025 session): requests ride the call's own SSE stream", async () => {
    const handle = await start();
    const tap = new FetchTap();
    const client = new ClientV1({ name: "v1-input", version: "1" }, { capabilities: CAPS });
    closers.push(() => client.close());
    answerAll(client);
    await client.connect(new HttpV1(new URL(handle.url), { fetch: tap.fetch }), REQUEST);
    expect((await client.callTool({ name: "ask", arguments: { what: "rounds" } }, undefined, REQUEST)).content).toEqual([{ type: "text", text: "Alice / Paris / teal" }]);
    expect((await client.callTool({ name: "ask", arguments: { what: "roots" } }, undefined, REQUEST)).content).toEqual([{ type: "text", text: "Roots: file:///work" }]);
    await tap.verify();
    const call = tap.exchanges.find((e) => ((e.requestBody as Json | undefined)?.params as Json | undefined)?.name === "ask");
    expect(call?.messages.filter((m) => m.method !== undefined).map((m) => m.method)).toEqual(["elicitation/create", "sampling/createMessage", "elicitation/create"]);
    expect(handle.transport.server.awaitingClient).toBe(0);
  });

  it("v1 over HTTP in JSON response mode: the handler learns that the client cannot be asked", async () => {
    const handle = await start({ responseMode: "json" });
    const client = new ClientV1({ name: "v1-json", version: "1" }, { capabilities: CAPS });
    closers.push(() => client.close());
    answerAll(client);
    await client.connect(new HttpV1(new URL(handle.url)), REQUEST);
    const result = await client.callTool({ name: "ask", arguments: { what: "elicit" } }, undefined, REQUEST);
    expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("single JSON response") }] });
  });

  it("v2 over HTTP (2026): the client fulfils input_required rounds against a stateless server", async () => {
    const handle = await start();
    const tap = new FetchTap();
    const client = new ClientV2({ name: "v2-input", version: "2" }, { capabilities: CAPS, versionNegotiation: { mode: { pin: "2026-07-28" } } });
    closers.push(() => client.close());
    answerAllV2(client);
    await client.connect(new HttpV2(new URL(handle.url), { fetch: tap.fetch }), REQUEST);
    expect((await client.callTool({ name: "ask", arguments: { what: "rounds" } }, REQUEST)).content).toEqual([{ type: "text", text: "Alice / Paris / teal" }]);
    await tap.verify();
    const rounds = tap.exchanges.filter((e) => ((e.requestBody as Json | undefined)?.params as Json | undefined)?.name === "ask");
    expect(rounds).toHaveLength(3);
    expect(rounds.map((e) => (e.messages[0]?.result as Json).resultType)).toEqual(["input_required", "input_required", "complete"]);
    expect(handle.stats.sessions).toBe(0);
  });

  it("v2 over stdio (2026): the same rounds", async () => {
    const client = new ClientV2({ name: "v2-stdio", version: "2" }, { capabilities: CAPS, versionNegotiation: { mode: { pin: "2026-07-28" } } });
    closers.push(() => client.close());
    answerAllV2(client);
    await client.connect(new StdioV2({ command: FIXTURE_SERVER.command, args: FIXTURE_SERVER.args, cwd: FIXTURE_SERVER.cwd ?? process.cwd(), stderr: "pipe" }), REQUEST);
    expect((await client.callTool({ name: "ask", arguments: { what: "rounds" } }, REQUEST)).content).toEqual([{ type: "text", text: "Alice / Paris / teal" }]);
  });
});
