/**
 * A registry of task-supporting tools for the task tests, in the shape `mcpgen build` emits. Handlers that
 * wait do so on a gate the test opens (`release`), never on time.
 */
import { ToolError, type Registry, type ToolContext } from "../../packages/runtime/src/index.js";

const empty = { type: "object", properties: {}, additionalProperties: true };
const anything = Object.assign(() => true, { errors: null });

/** Handlers waiting for the test, by label. */
const gates = new Map<string, () => void>();
/** Labels whose handler saw its signal abort. */
export const aborted = new Set<string>();

/** Lets the handler waiting on `label` finish; returns whether one was waiting. */
export function release(label: string): boolean {
  const open = gates.get(label);
  gates.delete(label);
  open?.();
  return open !== undefined;
}

export function waiting(label: string): boolean {
  return gates.has(label);
}

function gate(label: string, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    gates.set(label, resolve);
    signal.addEventListener(
      "abort",
      () => {
        aborted.add(label);
        gates.delete(label);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

type Handler = (input: Record<string, unknown>, ctx: ToolContext) => Promise<unknown>;

const tools: Record<string, { support?: "forbidden" | "optional" | "required"; handler: Handler }> = {
  /** Waits for `release(label)`, reporting progress before and after. */
  job: {
    support: "optional",
    handler: async ({ label }, ctx) => {
      await ctx.progress(1, 2, "started");
      await gate(String(label), ctx.signal);
      await ctx.progress(2, 2, "done");
      return `job ${String(label)} done`;
    },
  },
  /** Done at once: may answer directly. */
  quick: { support: "optional", handler: async () => "quick" },
  /** Runs only as a task. */
  must: {
    support: "required",
    handler: async ({ label }, ctx) => {
      await gate(String(label), ctx.signal);
      return "must done";
    },
  },
  /** Never a task. */
  plain: { support: "forbidden", handler: async () => "plain" },
  /** Asks the client to confirm, then answers. */
  confirm: {
    support: "optional",
    handler: async (_input, ctx) => {
      const answer = await ctx.elicit({ message: "Sure?", requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } } }, { key: "sure" });
      return `confirmed: ${answer.action}`;
    },
  },
  /** Asks for a name before it becomes a task, then waits for the test. */
  named: {
    support: "required",
    handler: async ({ label }, ctx) => {
      const answer = await ctx.elicit({ message: "Name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } }, { key: "name", beforeTask: true });
      await gate(String(label), ctx.signal);
      return `hello ${String(answer.content?.name)}`;
    },
  },
  /** Crashes once released. */
  crash: {
    support: "optional",
    handler: async ({ label }, ctx) => {
      await gate(String(label), ctx.signal);
      throw new Error("crashed");
    },
  },
  /** A tool error once released. */
  refuse: {
    support: "optional",
    handler: async ({ label }, ctx) => {
      await gate(String(label), ctx.signal);
      throw new ToolError("refused");
    },
  },
};

export const registry: Registry = {
  format: 2,
  server: { name: "tasks-fixture", version: "1.0.0" },
  tools: Object.entries(tools).map(([name, { support, handler }]) => ({
    name,
    hidden: false,
    wire: { name, inputSchema: empty, ...(support !== undefined && { execution: { taskSupport: support } }) },
    validators: async () => ({ input: anything }),
    handler: async () => ({ default: handler }),
  })),
};

/** A clock the test moves. */
export class Clock {
  constructor(public ms = Date.UTC(2026, 0, 1)) {}
  readonly now = (): number => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** Polls `check` (at most `tries` times, a turn of the event loop apart) until it returns something. */
export async function until<T>(check: () => T | undefined | Promise<T | undefined>, tries = 200): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error("the condition did not come true");
}
