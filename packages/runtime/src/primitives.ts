/**
 * Resources, prompts and completion, as one unit the server loads on the first request that needs it: a
 * server answering only tools never loads (or pays the memory for) this code, and a stdio server's start-up
 * stays as small as a tools-only one's.
 */
import { Completion, completionRequest } from "./completion.js";
import type { Invocation } from "./invocation.js";
import { PromptGet, promptSlot, type PromptSlot } from "./prompts.js";
import { clip } from "./protocol.js";
import type { Registry } from "./registry.js";
import { ResourceRead, ResourceRouter } from "./resources.js";
import type { RequestContext } from "./context.js";

export class Primitives {
  /** Static resources and resource templates. */
  readonly resources: ResourceRouter;
  readonly prompts = new Map<string, PromptSlot>();

  constructor(registry: Registry) {
    this.resources = new ResourceRouter(registry);
    for (const entry of registry.prompts ?? []) this.prompts.set(entry.name, promptSlot(entry));
  }

  /** A `resources/read` of `uri`. */
  read(ctx: RequestContext, uri: string): Invocation {
    return new ResourceRead(ctx, this.resources, uri);
  }

  /** A `prompts/get`, or what is wrong with it. */
  get(ctx: RequestContext, name: string, args: Record<string, unknown>): Invocation | string {
    const slot = this.prompts.get(name);
    if (!slot) return `Unknown prompt: ${clip(name)}`;
    return new PromptGet(ctx, slot, { ...args });
  }

  /** A `completion/complete`, or what is wrong with it. */
  complete(ctx: RequestContext): Invocation | string {
    const request = completionRequest(this, ctx.params);
    if (typeof request === "string") return `Invalid params: ${request}`;
    return new Completion(ctx, request);
  }
}
