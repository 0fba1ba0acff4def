/**
 * HTTP test plumbing: servers on 127.0.0.1 with ephemeral ports (always stopped), a `fetch` wiretap that
 * checks every JSON-RPC message the server sends against the spec schema of the version in force, and a
 * small SSE reader.
 */
import { createServer, serve, type HttpServerHandle, type Registry, type ServeOptions, type ServerOptions } from "../../../packages/runtime/src/index.js";
import { registry as fixtureRegistry } from "../helpers/fixtures.js";
import { ENVELOPE } from "../../helpers/wait.js";
import { assertServerMessage, type SpecVersion } from "../helpers/spec.js";

export type Json = Record<string, unknown>;

const running = new Set<HttpServerHandle>();

/** Starts the fixture registry (or `registry`) on 127.0.0.1, port 0. Stop with `stopAll()`. */
export async function start(options: ServeOptions & { registry?: Registry; server?: ServerOptions } = {}): Promise<HttpServerHandle> {
  const { registry = fixtureRegistry, server: serverOptions, ...serveOptions } = options;
  const errors: unknown[] = [];
  const handle = await serve(createServer(registry, { onError: (error) => errors.push(error), ...serverOptions }), { port: 0, ...serveOptions });
  running.add(handle);
  return handle;
}

export async function stopAll(): Promise<void> {
  const handles = [...running];
  running.clear();
  await Promise.all(handles.map((handle) => handle.close()));
}

export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
  retry?: number;
}

/** Parses a complete SSE body (comments are returned as events with `event: "comment"`). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (block.trim() === "") continue;
    const event: SseEvent = { data: "" };
    const data: string[] = [];
    let comment = true;
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(":")) continue;
      comment = false;
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "data") data.push(value);
      else if (field === "id") event.id = value;
      else if (field === "event") event.event = value;
      else if (field === "retry") event.retry = Number(value);
    }
    if (comment) events.push({ event: "comment", data: block });
    else {
      event.data = data.join("\n");
      events.push(event);
    }
  }
  return events;
}

/** Reads SSE events from a streaming body as they arrive. */
export class SseReader {
  private buffer = "";
  private readonly reader: ReadableStreamDefaultReader<string>;
  done = false;

  constructor(body: ReadableStream<Uint8Array>) {
    this.reader = body.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** The next event (comments included), or `undefined` at the end of the stream / after `ms`. */
  async next(ms = 5000): Promise<SseEvent | undefined> {
    const deadline = Date.now() + ms;
    for (;;) {
      const cut = this.buffer.search(/\r?\n\r?\n/);
      if (cut !== -1) {
        const block = this.buffer.slice(0, cut);
        this.buffer = this.buffer.slice(cut).replace(/^\r?\n\r?\n/, "");
        const [event] = parseSse(`${block}\n\n`);
        if (event) return event;
        continue;
      }
      if (this.done) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const chunk = await Promise.race([
        this.reader.read(),
        new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), left))),
      ]);
      clearTimeout(timer);
      if (chunk === "timeout") return undefined;
      if (chunk.done) this.done = true;
      else this.buffer += chunk.value;
    }
  }

  /** The next event that carries a JSON-RPC message, parsed. */
  async message(ms = 5000): Promise<Json | undefined> {
    for (;;) {
      const event = await this.next(ms);
      if (!event) return undefined;
      if (event.event !== "comment" && event.data !== "") return JSON.parse(event.data) as Json;
    }
  }

  /** The JSON-RPC messages left up to the end of the stream; fails if the stream has not ended within `ms`. */
  async rest(ms = 5000): Promise<Json[]> {
    const deadline = Date.now() + ms;
    const messages: Json[] = [];
    for (;;) {
      const event = await this.next(Math.max(0, deadline - Date.now()));
      if (event === undefined) {
        if (!this.done) throw new Error(`the stream did not end within ${ms} ms`);
        return messages;
      }
      if (event.event !== "comment" && event.data !== "") messages.push(JSON.parse(event.data) as Json);
    }
  }

  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => {});
  }
}

/** One HTTP exchange the tap saw. */
export interface Exchange {
  method: string;
  requestHeaders: Record<string, string>;
  requestBody: unknown;
  status: number;
  responseHeaders: Record<string, string>;
  /** Every JSON-RPC message of the response (JSON body or SSE events), each already spec-checked. */
  messages: Json[];
}

const MODERN = "2026-07-28";

/**
 * A `fetch` for the official clients that records every exchange and checks every server message against
 * the spec: answers to a `_meta`-enveloped request with 2026-07-28, everything in a session with the
 * version its `initialize` answered.
 */
export class FetchTap {
  readonly exchanges: Exchange[] = [];
  readonly problems: Error[] = [];
  private readonly sessionVersion = new Map<string, SpecVersion>();
  private readonly pending = new Set<Promise<void>>();

  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    const requestHeaders = Object.fromEntries(new Headers(init?.headers).entries());
    let requestBody: unknown;
    try {
      requestBody = typeof init?.body === "string" ? JSON.parse(init.body) : undefined;
    } catch {
      requestBody = init?.body;
    }
    const exchange: Exchange = {
      method: init?.method ?? "GET",
      requestHeaders,
      requestBody,
      status: response.status,
      responseHeaders: Object.fromEntries(response.headers.entries()),
      messages: [],
    };
    this.exchanges.push(exchange);
    const requests = new Map<string, string>();
    for (const m of Array.isArray(requestBody) ? requestBody : [requestBody]) {
      if (m && typeof m === "object" && "method" in m && "id" in m) requests.set(JSON.stringify((m as Json).id), (m as Json).method as string);
    }
    const single = !Array.isArray(requestBody) && requestBody && typeof requestBody === "object" ? (requestBody as Json) : undefined;
    const claim = ((single?.params as Json | undefined)?._meta as Json | undefined)?.["io.modelcontextprotocol/protocolVersion"];
    const sessionId = requestHeaders["mcp-session-id"];
    const version = (): SpecVersion =>
      claim === MODERN || (claim !== undefined && !sessionId) ? MODERN : (sessionId && this.sessionVersion.get(sessionId)) || (requestHeaders["mcp-protocol-version"] as SpecVersion | undefined) || "2025-11-25";
    const check = (message: Json): void => {
      const method = message.id !== undefined && ("result" in message || "error" in message) ? requests.get(JSON.stringify(message.id)) : undefined;
      let checkedVersion = version();
      if (method === "initialize" && "result" in message) {
        checkedVersion = (message.result as { protocolVersion: SpecVersion }).protocolVersion;
        const assigned = response.headers.get("mcp-session-id");
        if (assigned) this.sessionVersion.set(assigned, checkedVersion);
      }
      try {
        assertServerMessage(message, checkedVersion, { method: method === "initialize" && !("result" in message) ? undefined : method });
      } catch (error) {
        this.problems.push(error as Error);
      }
      exchange.messages.push(message);
    };
    const type = response.headers.get("content-type") ?? "";
    if (type.startsWith("application/json")) {
      const text = await response.clone().text();
      if (text !== "") for (const m of ([] as Json[]).concat(JSON.parse(text) as Json | Json[])) check(m);
    } else if (type.startsWith("text/event-stream") && response.body) {
      // Pass the stream through, parsing it on the way; the client cancelling its copy cancels the source.
      const source = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      const parse = (final: boolean): void => {
        const blocks = buffer.split(/\r?\n\r?\n/);
        buffer = final ? "" : (blocks.pop() ?? "");
        for (const event of parseSse(blocks.join("\n\n") + "\n\n")) if (event.event !== "comment" && event.data !== "") check(JSON.parse(event.data) as Json);
      };
      let finish: () => void = () => {};
      const done = new Promise<void>((resolve) => (finish = resolve));
      this.pending.add(done);
      void done.finally(() => this.pending.delete(done));
      const theirs = new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            const { done: end, value } = await source.read();
            if (end) {
              parse(true);
              finish();
              controller.close();
              return;
            }
            buffer += decoder.decode(value, { stream: true });
            parse(false);
            controller.enqueue(value);
          } catch (error) {
            finish();
            controller.error(error);
          }
        },
        async cancel(reason) {
          finish();
          await source.cancel(reason).catch(() => {});
        },
      });
      return new Response(theirs, { status: response.status, statusText: response.statusText, headers: response.headers });
    }
    return response;
  };

  /** Waits (briefly) for open streams to be read, then throws if any message broke the spec. */
  async verify(ms = 500): Promise<Exchange[]> {
    await Promise.race([Promise.allSettled([...this.pending]), new Promise((resolve) => setTimeout(resolve, ms))]);
    if (this.problems.length > 0) throw this.problems[0];
    return this.exchanges;
  }

  /** Every server message seen so far. */
  messages(): Json[] {
    return this.exchanges.flatMap((exchange) => exchange.messages);
  }
}

/** A raw POST with the headers a 2025-era client sends. */
export function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** A 2026-era request with matching headers (override any with `headers`). */
export function modern(url: string, id: number | string | undefined, method: string, params: Json = {}, headers: Record<string, string> = {}): Promise<Response> {
  const name = method === "tools/call" || method === "prompts/get" ? (params.name as string) : method === "resources/read" ? (params.uri as string) : undefined;
  return post(
    url,
    { jsonrpc: "2.0", ...(id !== undefined && { id }), method, params: { ...params, _meta: { ...ENVELOPE, ...(params._meta as Json | undefined) } } },
    { "mcp-protocol-version": MODERN, "mcp-method": method, ...(name !== undefined && { "mcp-name": name }), ...headers },
  );
}

/** Runs the 2025 handshake with raw requests; returns the session id. */
export async function initialize(url: string, version = "2025-11-25", capabilities: Json = {}): Promise<string> {
  const response = await post(url, { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: version, capabilities, clientInfo: { name: "raw", version: "1" } } });
  const sessionId = response.headers.get("mcp-session-id");
  if (response.status !== 200 || !sessionId) throw new Error(`initialize failed: ${response.status} ${await response.text()}`);
  assertServerMessage(await response.json(), version as SpecVersion, { method: "initialize" });
  const initialized = await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, { "mcp-session-id": sessionId, "mcp-protocol-version": version });
  if (initialized.status !== 202) throw new Error(`notifications/initialized: ${initialized.status}`);
  return sessionId;
}

/** Reads a response's JSON-RPC messages (JSON or a complete SSE body), checking each against `version`. */
export async function messagesOf(response: Response, version: SpecVersion, method?: string): Promise<Json[]> {
  const type = response.headers.get("content-type") ?? "";
  const text = await response.text();
  const messages: Json[] = type.startsWith("text/event-stream")
    ? parseSse(text).filter((event) => event.event !== "comment" && event.data !== "").map((event) => JSON.parse(event.data) as Json)
    : text === ""
      ? []
      : ([] as Json[]).concat(JSON.parse(text) as Json | Json[]);
  for (const message of messages) {
    const answers = "result" in message || "error" in message;
    assertServerMessage(message, version, { method: answers && message.id !== undefined ? method : undefined });
  }
  return messages;
}
