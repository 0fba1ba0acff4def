/**
 * Protocol constants shared by the core and the transports: reserved `_meta` keys, log-level ranks and
 * limits (versions and eras: era.ts), and the checks of a value's shape that go with them.
 */
import type { LogLevel } from "./handler.js";

/**
 * A JSON-RPC request id as MCP allows it (never `null`). An integer beyond 2^53 arrives as a `bigint`, so
 * it is answered with the digits it was sent with (see json.ts).
 */
export type RequestId = string | number | bigint;

/** Reserved `_meta` keys of the 2026-07-28 revision. */
export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";

/** RFC 5424 severities in increasing order; a message is sent when its rank is >= the threshold's. */
export const LOG_LEVEL_RANK: Readonly<Record<LogLevel, number>> = {
  debug: 0,
  info: 1,
  notice: 2,
  warning: 3,
  error: 4,
  critical: 5,
  alert: 6,
  emergency: 7,
};

/** The rank of `level`, or `undefined` when it is not a log level. */
export function logLevelRank(level: unknown): number | undefined {
  return typeof level === "string" && Object.hasOwn(LOG_LEVEL_RANK, level)
    ? LOG_LEVEL_RANK[level as LogLevel]
    : undefined;
}

export function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || (typeof value === "number" && Number.isInteger(value)) || typeof value === "bigint";
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The longest URI the core accepts from a client (`resources/read`, `resources/subscribe`, listen filters,
 * completion references), in UTF-16 code units: what a session stores stays bounded by count × this. 8 Ki is
 * what common HTTP servers accept as a whole request line, and matching that many characters against the
 * resource templates (linear) stays in milliseconds.
 */
export const MAX_URI_LENGTH = 8192;
/** Upper-cases the hex digits of percent-escapes (`%2f` and `%2F` are the same octet). */
export function normalizeEscapes(uri: string): string {
  return uri.includes("%") ? uri.replace(/%[0-9a-fA-F]{2}/g, (escape) => escape.toUpperCase()) : uri;
}

/** The longest name the core accepts from a client (tools, prompts, arguments, template variables). */
export const MAX_NAME_LENGTH = 1024;
/** How much of a client's string an error message quotes. */
const QUOTED_LENGTH = 120;

/** A client's string as an error message quotes it: cut short when long. */
export function clip(text: string): string {
  return text.length > QUOTED_LENGTH ? `${text.slice(0, QUOTED_LENGTH)}… (${text.length} characters)` : text;
}

/**
 * A client value as an error message shows it: a string quoted (and cut short), a number or boolean as it
 * is, anything else by its type. Never walks or stringifies the value, so a value nested any depth deep is safe.
 */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(clip(value));
    case "number":
    case "boolean":
    case "bigint":
      return String(value);
    case "undefined":
      return "nothing";
    default:
      return value === null ? "null" : Array.isArray(value) ? "an array" : "an object";
  }
}

export function isImplementation(value: unknown): value is { name: string; version: string } {
  return isObject(value) && typeof value.name === "string" && typeof value.version === "string";
}

/** The 2026-era `_meta` envelope: what is wrong with it, if anything (its protocol version aside). */
export function envelopeProblem(meta: Record<string, unknown>): string | undefined {
  const capabilities = meta[META_CLIENT_CAPABILITIES];
  if (capabilities === undefined) return `missing _meta["${META_CLIENT_CAPABILITIES}"]`;
  if (!isObject(capabilities)) return `_meta["${META_CLIENT_CAPABILITIES}"] must be an object`;
  const clientInfo = meta[META_CLIENT_INFO];
  if (clientInfo !== undefined && !isImplementation(clientInfo)) {
    return `_meta["${META_CLIENT_INFO}"] must be an object with string "name" and "version"`;
  }
  const level = meta[META_LOG_LEVEL];
  if (level !== undefined && logLevelRank(level) === undefined) {
    return `_meta["${META_LOG_LEVEL}"] must be one of ${Object.keys(LOG_LEVEL_RANK).join(", ")}`;
  }
  return undefined;
}
