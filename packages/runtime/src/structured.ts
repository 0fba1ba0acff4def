/**
 * `structured(value, content)`: a structured tool result with content of the handler's choosing. The mark
 * is a registered symbol, so a handler that imports another copy of the runtime is still understood, and
 * no JSON value can carry it.
 */
import type { ContentBlock, StructuredResult } from "./handler.js";

const MARK = Symbol.for("@mcpgen/runtime.structured");

/**
 * For a tool with an `outputSchema`: returns `value` as `structuredContent` (validated against the
 * schema) with `content` next to it in place of the JSON text the runtime writes otherwise — a summary
 * for people and models, say. A string becomes one text block.
 */
export function structured<Output>(value: Output, content: string | ContentBlock[]): StructuredResult<Output> {
  if (typeof content !== "string" && !Array.isArray(content)) throw new TypeError("structured(value, content): content must be a string or an array of content blocks");
  const blocks: ContentBlock[] = typeof content === "string" ? [{ type: "text", text: content }] : content;
  return Object.defineProperty({ structuredContent: value, content: blocks }, MARK, { value: true }) as unknown as StructuredResult<Output>;
}

/** Whether a handler's result was made by `structured()`. */
export function isStructured(value: unknown): value is StructuredResult<unknown> {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARK] === true;
}
