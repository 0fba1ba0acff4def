/**
 * Resources, prompts and completion, as one unit the server loads on the first request that needs it: a
 * server answering only tools never loads (or pays the memory for) this code, and a stdio server's start-up
 * stays as small as a tools-only one's.
 */
import { Completion, completionRequest } from "./completion.js";
import type { Invocation } from "./invocation.js";
import { PromptGet, promptSlot, type PromptSlot } from "./prompts.js";
import { clip, type RequestId } from "./protocol.js";
import type { Registry } from "./registry.js";
import { ResourceRead, ResourceRouter } from "./resources.js";
import type { Connection, Sink } from "./server.js";

/** What every handler-backed request carries besides its own params. */
export interface RequestFrame {
  readonly conn: Connection;
  readonly id: RequestId;
  readonly meta: Record<string, unknown> | undefined;
  readonly version: string;
  readonly modern: boolean;
  readonly sink: Sink;
  /** 2026 era: the request's params (multi round-trip input). */
  readonly params: Record<string, unknown> | undefined;
}

export class Primitives {
  /** Static resources and resource templates. */
  readonly resources: ResourceRouter;
  readonly prompts = new Map<string, PromptSlot>();

  constructor(registry: Registry) {
    this.resources = new ResourceRouter(registry);
    for (const entry of registry.prompts ?? []) this.prompts.set(entry.name, promptSlot(entry));
  }

  /** A `resources/read` of `uri`. */
  read(frame: RequestFrame, uri: string): Invocation {
    const { conn, id, meta, version, modern, sink, params } = frame;
    return new ResourceRead(conn, this.resources, uri, id, meta, version, modern, sink, modern ? params : undefined);
  }

  /** A `prompts/get`, or what is wrong with it. */
  get(frame: RequestFrame, name: string, args: Record<string, unknown>): Invocation | string {
    const slot = this.prompts.get(name);
    if (!slot) return `Unknown prompt: ${clip(name)}`;
    const { conn, id, meta, version, modern, sink, params } = frame;
    return new PromptGet(conn, slot, { ...args }, id, meta, version, modern, sink, modern ? params : undefined);
  }

  /** A `completion/complete`, or what is wrong with it. */
  complete(frame: RequestFrame): Invocation | string {
    const request = completionRequest(this, frame.params);
    if (typeof request === "string") return `Invalid params: ${request}`;
    const { conn, id, meta, version, modern, sink } = frame;
    return new Completion(conn, request, id, meta, version, modern, sink);
  }
}
