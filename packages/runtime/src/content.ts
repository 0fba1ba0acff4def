/**
 * Content helpers for handlers: the content blocks of tool results and prompt messages, each with optional
 * annotations (`audience`, `priority`, `lastModified`), and `structured(value, content)`, a structured tool
 * result with content of the handler's choosing. Bytes are given as `Uint8Array` and sent base64.
 *
 *   return [text("Here is the chart:"), image(png, "image/png", { audience: ["user"] })];
 */
import type {
  AudioContent,
  ContentAnnotations,
  ContentBlock,
  EmbeddedResource,
  ImageContent,
  ResourceContents,
  ResourceLink,
  StructuredResult,
  TextContent,
} from "./handler.js";

/** Annotations as the helpers take them: `lastModified` may be a `Date`. */
export interface AnnotationsInput {
  audience?: ("user" | "assistant")[];
  /** 0 (least important) to 1 (effectively required). */
  priority?: number;
  /** An ISO 8601 timestamp, or a `Date`. */
  lastModified?: string | Date;
}

export function text(value: string, annotations?: AnnotationsInput): TextContent {
  return withAnnotations<TextContent>({ type: "text", text: value }, annotations);
}

/** An image: `data` is the bytes, or a base64 string already. */
export function image(data: Uint8Array | string, mimeType: string, annotations?: AnnotationsInput): ImageContent {
  return withAnnotations<ImageContent>({ type: "image", data: base64Of(data), mimeType }, annotations);
}

/** An audio clip: `data` is the bytes, or a base64 string already. */
export function audio(data: Uint8Array | string, mimeType: string, annotations?: AnnotationsInput): AudioContent {
  return withAnnotations<AudioContent>({ type: "audio", data: base64Of(data), mimeType }, annotations);
}

/** A link to a resource the client can read (`resources/read`), without its contents. */
export function resourceLink(link: Omit<ResourceLink, "type" | "annotations">, annotations?: AnnotationsInput): ResourceLink {
  return withAnnotations<ResourceLink>({ type: "resource_link", ...link }, annotations);
}

/** A resource embedded with its contents: text for a string, a base64 blob for bytes. */
export function embedded(
  uri: string,
  content: string | Uint8Array,
  options: { mimeType?: string; annotations?: AnnotationsInput; _meta?: Record<string, unknown> } = {},
): EmbeddedResource {
  const resource: ResourceContents =
    typeof content === "string"
      ? { uri, ...(options.mimeType !== undefined && { mimeType: options.mimeType }), text: content }
      : { uri, ...(options.mimeType !== undefined && { mimeType: options.mimeType }), blob: toBase64(content) };
  const block: EmbeddedResource = { type: "resource", resource };
  if (options._meta !== undefined) block._meta = options._meta;
  return withAnnotations(block, options.annotations);
}

/** Standard base64 of `bytes` (Node's Buffer when there is one, else `btoa`). */
export function toBase64(bytes: Uint8Array): string {
  const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;
  if (NodeBuffer) return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function base64Of(data: Uint8Array | string): string {
  return typeof data === "string" ? data : toBase64(data);
}

function withAnnotations<T extends { annotations?: ContentAnnotations }>(block: T, input: AnnotationsInput | undefined): T {
  if (input === undefined) return block;
  const annotations: ContentAnnotations = {};
  if (input.audience !== undefined) annotations.audience = [...input.audience];
  if (input.priority !== undefined) {
    if (!(input.priority >= 0 && input.priority <= 1)) throw new RangeError(`priority must be between 0 and 1, got ${input.priority}`);
    annotations.priority = input.priority;
  }
  if (input.lastModified !== undefined) {
    annotations.lastModified = input.lastModified instanceof Date ? input.lastModified.toISOString() : input.lastModified;
  }
  block.annotations = annotations;
  return block;
}

/**
 * The mark of a `structured()` result: a registered symbol, so a handler that imports another copy of the
 * runtime is still understood, and no JSON value can carry it.
 */
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
