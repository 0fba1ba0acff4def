/**
 * Every protocol-level failure goes through ONE table: error kind → JSON-RPC code, default message and the
 * HTTP status a Streamable HTTP transport answers with. Tool failures are not here: they are `isError`
 * results, not protocol errors.
 */
import { idJson } from "./json.js";
import type { RequestId } from "./protocol.js";

export type ErrorKind =
  | "parseError"
  | "invalidRequest"
  | "methodNotFound"
  | "invalidParams"
  | "internalError"
  | "unsupportedProtocolVersion"
  | "missingRequiredClientCapability"
  // 2025 era: resources/read of a URI no resource or template has (2026-07-28 uses invalidParams, SEP-2164).
  | "resourceNotFound"
  // Streamable HTTP: failures of the exchange itself, answered before (or instead of) the core.
  | "headerMismatch"
  | "badRequest"
  | "sessionNotFound"
  | "unauthorized"
  | "forbidden"
  | "notFound"
  | "methodNotAllowed"
  | "notAcceptable"
  | "conflict"
  | "gone"
  | "payloadTooLarge"
  | "unsupportedMediaType"
  | "serviceUnavailable";

export interface ErrorSpec {
  readonly code: number;
  readonly message: string;
  readonly httpStatus: number;
}

export const ERROR_TABLE: Readonly<Record<ErrorKind, ErrorSpec>> = {
  parseError: { code: -32700, message: "Parse error", httpStatus: 400 },
  invalidRequest: { code: -32600, message: "Invalid Request", httpStatus: 400 },
  methodNotFound: { code: -32601, message: "Method not found", httpStatus: 404 },
  invalidParams: { code: -32602, message: "Invalid params", httpStatus: 400 },
  internalError: { code: -32603, message: "Internal error", httpStatus: 500 },
  unsupportedProtocolVersion: { code: -32022, message: "Unsupported protocol version", httpStatus: 400 },
  missingRequiredClientCapability: { code: -32021, message: "Missing required client capability", httpStatus: 400 },
  resourceNotFound: { code: -32002, message: "Resource not found", httpStatus: 404 },
  headerMismatch: { code: -32020, message: "Header mismatch", httpStatus: 400 },
  badRequest: { code: -32000, message: "Bad Request", httpStatus: 400 },
  sessionNotFound: { code: -32001, message: "Session not found", httpStatus: 404 },
  unauthorized: { code: -32000, message: "Unauthorized", httpStatus: 401 },
  forbidden: { code: -32000, message: "Forbidden", httpStatus: 403 },
  notFound: { code: -32000, message: "Not Found", httpStatus: 404 },
  methodNotAllowed: { code: -32000, message: "Method Not Allowed", httpStatus: 405 },
  notAcceptable: { code: -32000, message: "Not Acceptable", httpStatus: 406 },
  conflict: { code: -32000, message: "Conflict", httpStatus: 409 },
  gone: { code: -32000, message: "Gone", httpStatus: 410 },
  payloadTooLarge: { code: -32000, message: "Payload Too Large", httpStatus: 413 },
  unsupportedMediaType: { code: -32000, message: "Unsupported Media Type", httpStatus: 415 },
  serviceUnavailable: { code: -32000, message: "Service Unavailable", httpStatus: 503 },
};

/** Told the kind of an error response (a transport's `Sink`: HTTP takes its status from the table). */
export interface FailureListener {
  failed?(kind: ErrorKind): void;
}

/** Logs a failure of the runtime itself (a bug), which the request survives with a -32603 or no answer. */
export function logInternalError(error: unknown): void {
  console.error("[mcpgen] internal error:", error);
}

/**
 * An error response to a request that came through `to`, which is told its kind: how the core hands a
 * transport the typed outcome of a request without the transport reading it back out of the JSON.
 */
export function refuse(to: FailureListener | undefined, id: RequestId | undefined, kind: ErrorKind, message?: string, data?: unknown): string {
  to?.failed?.(kind);
  return errorResponse(id, kind, message, data);
}

/**
 * Serializes a JSON-RPC error response. `id` is left out when the request's id could not be read (the
 * 2025-11-25 and later schemas make it optional; `null` is not a valid MCP request id).
 */
export function errorResponse(id: RequestId | undefined, kind: ErrorKind, message?: string, data?: unknown): string {
  const spec = ERROR_TABLE[kind];
  const error: { code: number; message: string; data?: unknown } = { code: spec.code, message: message ?? spec.message };
  if (data !== undefined) error.data = data;
  return id === undefined ? JSON.stringify({ jsonrpc: "2.0", error }) : `{"jsonrpc":"2.0","id":${idJson(id)},"error":${JSON.stringify(error)}}`;
}

/** Serializes a JSON-RPC result response around an already serialized result object. */
export function resultResponse(id: RequestId, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${idJson(id)},"result":${resultJson}}`;
}

/** `resultResponse(id, `{${members}}`)`, in one template. */
export function membersResponse(id: RequestId, members: string): string {
  return `{"jsonrpc":"2.0","id":${idJson(id)},"result":{${members}}}`;
}
