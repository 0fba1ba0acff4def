/**
 * The HTTP answers the transport builds itself: a body, or an SSE stream, with the status of an error
 * taken from the error table.
 */
import { errorResponse, ERROR_TABLE, type ErrorKind } from "../errors.js";
import type { RequestId } from "../protocol.js";
import type { SseStream } from "./sse.js";

/** The answer: a complete body, or an SSE stream the adapter attaches to. */
export type HttpOutput =
  | { readonly status: number; readonly headers: Record<string, string>; readonly body: string | undefined; readonly stream?: undefined }
  | { readonly status: number; readonly headers: Record<string, string>; readonly body?: undefined; readonly stream: SseStream };

/** Takes the answer to a request; called once. */
export type Answer = (output: HttpOutput) => void;

/** An error answered by HTTP status plus a JSON-RPC error body, both from the error table. */
export function reject(kind: ErrorKind, message: string, id?: RequestId): HttpOutput {
  return { status: ERROR_TABLE[kind].httpStatus, headers: jsonHeaders(), body: errorResponse(id, kind, message) };
}

/** A JSON-RPC response the core produced: 200, or the status of the error it is (when the era asks for that). */
export function json(body: string, error?: ErrorKind): HttpOutput {
  return { status: error === undefined ? 200 : ERROR_TABLE[error].httpStatus, headers: jsonHeaders(), body };
}

/** Accepted, nothing to say (notifications, client responses). */
export function accepted(): HttpOutput {
  return { status: 202, headers: {}, body: undefined };
}

export function stream(stream: SseStream): HttpOutput {
  return { status: 200, headers: { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" }, stream };
}

export function withHeaders(output: HttpOutput, headers: Record<string, string>): HttpOutput {
  Object.assign(output.headers, headers);
  return output;
}

function jsonHeaders(): Record<string, string> {
  return { "content-type": "application/json" };
}
