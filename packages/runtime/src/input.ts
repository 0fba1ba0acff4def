/**
 * Server→client input (`ctx.elicit`, `ctx.sample`, `ctx.listRoots`) in both eras:
 * - 2025: real JSON-RPC requests to the client; `Outgoing` matches the client's responses to them by id,
 *   bound to whoever was asked: a response counts only on the connection (stdio, an HTTP session) that
 *   carried the request, or, for stateless HTTP (where every POST has a connection of its own), from the
 *   same authenticated subject over another stateless exchange. Anyone else's answer is ignored.
 * - 2026: multi round-trip requests; `RequestStateCodec` seals the answers collected so far into the
 *   `requestState` the client echoes, bound to the tool (or prompt, or resource), its arguments and the
 *   caller, and expiring.
 * Web Crypto only (HMAC-SHA-256), so it runs wherever the fetch handler runs.
 */
import { ClientRequestError } from "./handler.js";
import { isObject } from "./protocol.js";

/** The three kinds of input request, with the client capability each needs. */
export const INPUT_METHODS = {
  "elicitation/create": { capability: "elicitation", prefix: "elicit" },
  "sampling/createMessage": { capability: "sampling", prefix: "sample" },
  "roots/list": { capability: "roots", prefix: "roots" },
} as const;
export type InputMethod = keyof typeof INPUT_METHODS;

interface Waiting {
  resolve(result: unknown): void;
  reject(error: unknown): void;
  readonly owner: object;
  readonly asked: Asked;
}

/** Who a server→client request went to: its connection and the caller's authenticated subject. */
export interface Asked {
  /** The connection (a stateless one answers through any other stateless connection of the same subject). */
  readonly connection: object;
  readonly ephemeral: boolean;
  readonly subject: string | undefined;
}

/** Server→client requests waiting for their response (2025 era). */
export class Outgoing {
  private readonly waiting = new Map<string, Waiting>();

  get size(): number {
    return this.waiting.size;
  }

  /** A fresh, unguessable request id, sent to `asked`, and the promise of its result. */
  open(owner: object, asked: Asked): { id: string; result: Promise<unknown> } {
    const id = `mcpgen-${crypto.randomUUID()}`;
    const result = new Promise<unknown>((resolve, reject) => this.waiting.set(id, { resolve, reject, owner, asked }));
    return { id, result };
  }

  /** Hands a client response to whoever waits for it; `false` when nobody does (or not for this sender). */
  deliver(message: Record<string, unknown>, from: Asked): boolean {
    const id = message.id;
    if (typeof id !== "string") return false;
    const waiting = this.waiting.get(id);
    if (!waiting || !answerable(waiting.asked, from)) return false;
    this.waiting.delete(id);
    if ("result" in message && isObject(message.result)) waiting.resolve(message.result);
    else {
      const error = isObject(message.error) ? message.error : {};
      const text = typeof error.message === "string" ? error.message : "the client answered with an error";
      waiting.reject(new ClientRequestError(text, typeof error.code === "number" ? error.code : undefined, error.data));
    }
    return true;
  }

  /** Gives up on every request `owner` opened (its call ended); returns their ids. */
  abandon(owner: object, reason: unknown): string[] {
    const ids: string[] = [];
    for (const [id, waiting] of this.waiting) {
      if (waiting.owner !== owner) continue;
      this.waiting.delete(id);
      waiting.reject(reason);
      ids.push(id);
    }
    return ids;
  }
}

/** Whether a response from `from` may answer a request sent to `asked`. */
function answerable(asked: Asked, from: Asked): boolean {
  if (asked.subject !== from.subject) return false;
  if (asked.connection === from.connection) return true;
  return asked.ephemeral && from.ephemeral;
}

/** What a `requestState` carries: the answers of earlier rounds and the keys asked in the last one. */
export interface SealedInput {
  readonly answers: Readonly<Record<string, unknown>>;
  readonly pending: readonly string[];
}

/** What a `requestState` is bound to: a state minted for one call cannot be used with another. */
export interface StateBinding {
  /** The tool's name; `prompt:<name>` or `resource:<uri>` for the other requests that may ask for input. */
  readonly target: string;
  readonly args: unknown;
  readonly subject: string | undefined;
}

type HmacKey = Awaited<ReturnType<typeof crypto.subtle.importKey>>;

export class RequestStateCodec {
  private key: Promise<HmacKey> | undefined;

  constructor(
    private readonly secret: string | Uint8Array | undefined,
    private readonly ttlMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  async seal(input: SealedInput, binding: StateBinding): Promise<string> {
    const payload = base64url(new TextEncoder().encode(JSON.stringify({ v: 1, x: this.clock() + this.ttlMs, a: input.answers, p: input.pending })));
    const signature = await crypto.subtle.sign("HMAC", await this.hmacKey(), new TextEncoder().encode(signed(payload, binding)));
    return `${payload}.${base64url(new Uint8Array(signature))}`;
  }

  /** The sealed input, or a reason why the state is refused. */
  async open(state: string, binding: StateBinding): Promise<SealedInput | string> {
    const dot = state.indexOf(".");
    const payload = state.slice(0, dot);
    const signature = dot === -1 ? undefined : fromBase64url(state.slice(dot + 1));
    if (!signature || payload === "") return "requestState is malformed";
    const valid = await crypto.subtle.verify("HMAC", await this.hmacKey(), signature, new TextEncoder().encode(signed(payload, binding)));
    if (!valid) return "requestState failed verification (tampered, or minted for another call)";
    const bytes = fromBase64url(payload);
    let value: unknown;
    try {
      value = bytes && JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      value = undefined;
    }
    if (!isObject(value) || value.v !== 1 || typeof value.x !== "number" || !isObject(value.a) || !Array.isArray(value.p)) return "requestState is malformed";
    if (value.x < this.clock()) return "requestState expired; call the tool again";
    return { answers: value.a, pending: value.p.filter((key): key is string => typeof key === "string") };
  }

  private hmacKey(): Promise<HmacKey> {
    this.key ??= (async () => {
      const raw =
        this.secret === undefined
          ? crypto.getRandomValues(new Uint8Array(32))
          : typeof this.secret === "string"
            ? new TextEncoder().encode(this.secret)
            : this.secret;
      return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    })();
    return this.key;
  }
}

/** The signed text: the payload plus everything it is bound to (never sent, recomputed on receipt). */
function signed(payload: string, binding: StateBinding): string {
  return `${payload}\n${binding.target}\n${canonical(binding.args)}\n${binding.subject ?? ""}`;
}

/** JSON with sorted keys, so that a client re-serializing the arguments does not break the binding. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .filter((key) => value[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4));
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** Whether `value` has the shape of an answer to `method` (a wrong one is asked for again). */
export function isAnswer(method: InputMethod, value: unknown): boolean {
  if (!isObject(value)) return false;
  if (method === "elicitation/create") return value.action === "accept" || value.action === "decline" || value.action === "cancel";
  if (method === "sampling/createMessage") return typeof value.role === "string" && (isObject(value.content) || Array.isArray(value.content));
  return Array.isArray(value.roots);
}
