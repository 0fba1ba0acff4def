/**
 * Drives the core in-process, the way a transport would, checking every message it emits (responses and
 * the notifications reaching the sink) against the spec schema of the version in force.
 */
import { createServer, type Connection, type Registry, type Server, type ServerOptions } from "../../../packages/runtime/src/index.js";
import { registry as fixtureRegistry } from "./fixtures.js";
import { ENVELOPE } from "../../helpers/wait.js";
import { assertServerMessage, type SpecVersion } from "./spec.js";

export type Message = Record<string, unknown>;
export type JsonRpcError = { code: number; message: string; data?: unknown };

export interface HarnessOptions extends ServerOptions {
  registry?: Registry;
  /** Connect to this server instead of a fresh one (several harnesses = several clients of one server). */
  server?: Server;
}

/** A connection to a fresh server, plus what it sent to the sink. */
export class Harness {
  readonly conn: Connection;
  readonly notifications: Message[] = [];
  /** The version notifications and unmatched responses are checked against. */
  version: SpecVersion = "2026-07-28";
  readonly errors: unknown[] = [];
  private nextId = 1;

  constructor(options: HarnessOptions = {}) {
    const { registry = fixtureRegistry, server: shared, ...serverOptions } = options;
    const server = shared ?? createServer(registry, { onError: (error) => this.errors.push(error), ...serverOptions });
    this.conn = server.connect({
      send: (line) => {
        const message = JSON.parse(line) as Message;
        assertServerMessage(message, this.version);
        this.notifications.push(message);
      },
    });
  }

  /** Hands one message to the core; returns the parsed reply (checked as an answer to `method`). */
  async raw(message: unknown, method?: string, version: SpecVersion = this.version): Promise<Message | Message[] | undefined> {
    const reply = await this.conn.handle(message);
    if (reply === undefined) return undefined;
    const parsed = JSON.parse(reply) as Message | Message[];
    for (const one of Array.isArray(parsed) ? parsed : [parsed]) assertServerMessage(one, version, { method });
    return parsed;
  }

  id(): number {
    return this.nextId++;
  }

  /** A request; in the 2026 era the `_meta` envelope is added (and `meta` merged over it). */
  async request(method: string, params: Record<string, unknown> = {}, meta?: Record<string, unknown>): Promise<Message> {
    const envelope = this.version === "2026-07-28" ? { ...ENVELOPE, ...meta } : meta;
    const message = { jsonrpc: "2.0", id: this.id(), method, params: envelope ? { ...params, _meta: envelope } : params };
    const reply = await this.raw(message, method);
    if (!reply || Array.isArray(reply)) throw new Error(`expected one response to ${method}`);
    if (reply.id !== message.id) throw new Error(`response id ${String(reply.id)} does not match request id ${message.id}`);
    return reply;
  }

  async result(method: string, params?: Record<string, unknown>, meta?: Record<string, unknown>): Promise<Message> {
    const reply = await this.request(method, params, meta);
    if (!("result" in reply)) throw new Error(`${method} failed: ${JSON.stringify(reply.error)}`);
    return reply.result as Message;
  }

  async error(method: string, params?: Record<string, unknown>, meta?: Record<string, unknown>): Promise<JsonRpcError> {
    const reply = await this.request(method, params, meta);
    if (!("error" in reply)) throw new Error(`${method} unexpectedly succeeded: ${JSON.stringify(reply.result)}`);
    return reply.error as JsonRpcError;
  }

  /** `tools/call`, returning the CallToolResult. */
  call(name: string, args?: Record<string, unknown>, meta?: Record<string, unknown>): Promise<Message> {
    return this.result("tools/call", args === undefined ? { name } : { name, arguments: args }, meta);
  }

  /** Runs the 2025 handshake for `version` (the answered version becomes the one messages are checked with). */
  async initialize(requested: string = "2025-11-25"): Promise<Message> {
    this.version = "2025-11-25";
    const result = (await this.raw(
      { jsonrpc: "2.0", id: this.id(), method: "initialize", params: { protocolVersion: requested, capabilities: {}, clientInfo: ENVELOPE["io.modelcontextprotocol/clientInfo"] } },
      "initialize",
      SPEC_OF[requested] ?? "2025-11-25",
    )) as Message;
    const answered = (result.result as { protocolVersion: SpecVersion }).protocolVersion;
    this.version = answered;
    await this.raw({ jsonrpc: "2.0", method: "notifications/initialized" });
    return result.result as Message;
  }

  /** Text of the first content block of a CallToolResult. */
  static text(result: Message): string {
    return ((result.content as { text?: string }[])[0]?.text ?? "") as string;
  }
}

const SPEC_OF: Record<string, SpecVersion> = {
  "2025-03-26": "2025-03-26",
  "2025-06-18": "2025-06-18",
  "2025-11-25": "2025-11-25",
};
