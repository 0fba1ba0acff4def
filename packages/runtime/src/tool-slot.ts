/**
 * The runtime's per-tool state, made for every tool at start-up: its metadata, parsed on first use, and its
 * validators and handler, loaded on first call.
 */
import { Lazy } from "./lazy.js";
import type { ToolHandler } from "./handler.js";
import type { ToolEntry, Validate, WireTool } from "./registry.js";

/** A tool's validators and handler, loaded on first call. */
export interface LoadedTool {
  readonly input: Validate;
  readonly output: Validate | undefined;
  readonly handler: ToolHandler<unknown, unknown>;
}

type TaskSupport = "forbidden" | "optional" | "required";

export class ToolSlot {
  /** Validators and handler, loaded once (a failed load is retried by the next call). */
  readonly tool: Lazy<LoadedTool>;
  #wire: Readonly<WireTool> | undefined;
  #structured: boolean | undefined;
  #taskSupport: TaskSupport | undefined;

  constructor(readonly entry: ToolEntry) {
    this.tool = new Lazy(() =>
      Promise.all([entry.validators(), entry.handler()]).then(([validators, module]): LoadedTool => {
        if (typeof module.default !== "function") throw new TypeError(`the handler module of tool "${entry.name}" has no default-exported function`);
        return { input: validators.input, output: validators.output, handler: module.default };
      }),
    );
  }

  /** The tool's wire metadata; the JSON text of a generated registry is parsed on first use. */
  get wire(): Readonly<WireTool> {
    const wire = this.entry.wire;
    return (this.#wire ??= typeof wire === "string" ? (JSON.parse(wire) as WireTool) : wire);
  }

  /** The tool declares an `outputSchema`: its handler returns a structured value. */
  get structured(): boolean {
    return (this.#structured ??= this.wire.outputSchema !== undefined);
  }

  /**
   * Whether a call may (`optional`) or must (`required`) run as a task. Asked of every tool at start-up: a
   * text without the member's name is not parsed for it.
   */
  get taskSupport(): TaskSupport {
    if (this.#taskSupport === undefined) {
      const wire = this.entry.wire;
      this.#taskSupport = typeof wire === "string" && !wire.includes('"taskSupport"') ? "forbidden" : (this.wire.execution?.taskSupport ?? "forbidden");
    }
    return this.#taskSupport;
  }
}
