/**
 * The stable process an MCP client talks to over stdio while `mcpgen dev` restarts the server behind it.
 * It relays lines to the current child and back, and keeps the client's session across restarts: the
 * client's `initialize` (and `notifications/initialized`) is replayed to every new child, its answer
 * swallowed, and the client is told `notifications/<kind>/list_changed` for every list the new server
 * declares as changing. A request still in flight when its child goes gets a JSON-RPC error saying so;
 * while the build is broken every request gets an error naming the problem. Nothing is answered by a
 * server built from older schemas.
 */
import type { ServerChild } from "./child.js";

/** The error code of the answers the front gives itself (JSON-RPC leaves -32000…-32099 to servers). */
export const DEV_ERROR = -32000;

const REPLAY_ID = "mcpgen-dev:initialize";

type Id = string | number;
type Message = { jsonrpc?: unknown; id?: unknown; method?: unknown; result?: unknown; error?: unknown; params?: unknown };

type State = { kind: "starting"; queue: string[] } | { kind: "up"; child: ServerChild } | { kind: "down"; reason: string };

export class StdioFront {
  private state: State = { kind: "starting", queue: [] };
  /** The client's initialize request and whether it has said `notifications/initialized` (2025 era). */
  private init: { request: Message; initialized: boolean } | undefined;
  /** Requests relayed to the current child and not answered yet, by the id as the client sent it. */
  private readonly pending = new Map<string, Id>();

  constructor(private readonly toClient: (line: string) => void) {}

  /** One line from the client. */
  fromClient(line: string): void {
    if (line.trim() === "") return;
    const messages = parse(line);
    const state = this.state;
    if (state.kind === "starting") state.queue.push(line);
    else if (state.kind === "up") {
      for (const m of messages ?? []) {
        this.remember(m);
        if (isRequest(m)) this.pending.set(key(m.id as Id), m.id as Id);
      }
      state.child.send(line);
    } else if (messages === undefined) this.toClient(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }));
    else for (const m of messages) if (isRequest(m)) this.answer(m.id as Id, state.reason);
  }

  /** A change was seen: hold what the client sends until the new server is up (or the build failed). */
  hold(): void {
    if (this.state.kind !== "starting") this.state = { kind: "starting", queue: [] };
  }

  /** The current child is going (restart, broken build, exit): its unanswered requests get `reason`. */
  dropped(reason: string): void {
    for (const id of this.pending.values()) this.answer(id, reason);
    this.pending.clear();
  }

  /**
   * A new child serves from now on. Resolves when it is ready: it answered the replayed `initialize` (at
   * once when there is no session to replay), or it exited.
   */
  up(child: ServerChild): Promise<void> {
    const queue = this.state.kind === "starting" ? this.state.queue : [];
    this.state = { kind: "up", child };
    child.onLine((line) => this.fromChild(line));
    const ready = this.init ? Promise.race([new Promise<void>((resolve) => (this.replayed = resolve)), child.exited.then(() => {})]) : Promise.resolve();
    if (this.init) {
      child.send(JSON.stringify({ ...this.init.request, id: REPLAY_ID }));
      if (this.init.initialized) child.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    }
    for (const line of queue) this.fromClient(line);
    return ready;
  }

  private replayed: (() => void) | undefined;

  /** No server: every request gets an error naming `reason` until the next `up`. */
  down(reason: string): void {
    const queue = this.state.kind === "starting" ? this.state.queue : [];
    this.state = { kind: "down", reason };
    for (const line of queue) this.fromClient(line);
  }

  private fromChild(line: string): void {
    const messages = parse(line);
    const only = messages?.length === 1 ? messages[0] : undefined;
    if (only && only.id === REPLAY_ID && only.method === undefined) {
      // The replayed handshake: the client already has its answer; tell it what may have changed.
      const capabilities = ((only.result as { capabilities?: Record<string, { listChanged?: boolean }> } | undefined)?.capabilities) ?? {};
      for (const kind of ["tools", "resources", "prompts"])
        if (capabilities[kind]?.listChanged) this.toClient(JSON.stringify({ jsonrpc: "2.0", method: `notifications/${kind}/list_changed` }));
      this.replayed?.();
      return;
    }
    for (const m of messages ?? []) if (m.method === undefined && (typeof m.id === "string" || typeof m.id === "number")) this.pending.delete(key(m.id));
    this.toClient(line);
  }

  private remember(m: Message): void {
    if (m.method === "initialize" && isRequest(m)) this.init = { request: m, initialized: false };
    else if (m.method === "notifications/initialized" && this.init) this.init.initialized = true;
  }

  private answer(id: Id, reason: string): void {
    this.toClient(JSON.stringify({ jsonrpc: "2.0", id, error: { code: DEV_ERROR, message: `mcpgen dev: ${reason}` } }));
  }
}

function parse(line: string): Message[] | undefined {
  try {
    const value: unknown = JSON.parse(line);
    const list = Array.isArray(value) ? value : [value];
    return list.filter((m): m is Message => m !== null && typeof m === "object" && !Array.isArray(m));
  } catch {
    return undefined;
  }
}

const isRequest = (m: Message) => typeof m.method === "string" && (typeof m.id === "string" || typeof m.id === "number");
const key = (id: Id) => `${typeof id}:${id}`;
