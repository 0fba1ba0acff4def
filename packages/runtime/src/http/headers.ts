/**
 * 2026-07-28 request metadata headers: `Mcp-Method`, `Mcp-Name` and the `Mcp-Param-*` headers that tools
 * declare with `x-mcp-header`, checked against the body. Any disagreement is a `HeaderMismatch`.
 */
import type { WireTool } from "../registry.js";
import { describeValue, isObject } from "../protocol.js";

/** Decodes the `=?base64?…?=` sentinel form of a header value; `undefined` when it is malformed. */
export function decodeHeaderValue(value: string): string | undefined {
  if (!value.startsWith("=?base64?") || !value.endsWith("?=") || value.length < 11) return invalidChars(value) ? undefined : value;
  const encoded = value.slice(9, -2);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return undefined;
  try {
    const binary = atob(encoded);
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Characters a plain header value may not carry (RFC 9110 field values: visible ASCII, space, tab). */
function invalidChars(value: string): boolean {
  return /[^\t\x20-\x7e]/.test(value);
}

/** Where `Mcp-Name` comes from, per method. */
export function nameSource(method: string, params: Record<string, unknown> | undefined): { field: string; value: unknown } | undefined {
  if (method === "tools/call" || method === "prompts/get") return { field: "params.name", value: params?.name };
  if (method === "resources/read") return { field: "params.uri", value: params?.uri };
  if (method === "tasks/get" || method === "tasks/update" || method === "tasks/cancel") return { field: "params.taskId", value: params?.taskId };
  return undefined;
}

/** One `x-mcp-header` declaration: the property path in the arguments and the header it is mirrored into. */
export interface ParamHeader {
  readonly path: readonly string[];
  /** Lower-cased `mcp-param-<name>`. */
  readonly header: string;
  readonly display: string;
}

/** Collects a tool's `x-mcp-header` declarations (properties reached through `properties` chains only). */
export function paramHeaders(tool: Readonly<WireTool>): readonly ParamHeader[] {
  const found: ParamHeader[] = [];
  const walk = (schema: unknown, path: string[]): void => {
    if (!isObject(schema) || !isObject(schema.properties)) return;
    for (const [key, property] of Object.entries(schema.properties)) {
      if (!isObject(property)) continue;
      const name = property["x-mcp-header"];
      if (typeof name === "string" && name !== "") {
        found.push({ path: [...path, key], header: `mcp-param-${name.toLowerCase()}`, display: `Mcp-Param-${name}` });
      }
      walk(property, [...path, key]);
    }
  };
  walk(tool.inputSchema, []);
  return found;
}

/** The first disagreement between the `Mcp-Param-*` headers and the arguments, if any. */
export function paramHeaderProblem(
  declarations: readonly ParamHeader[],
  args: unknown,
  header: (name: string) => string | undefined,
): string | undefined {
  for (const declaration of declarations) {
    let value: unknown = args;
    for (const key of declaration.path) value = isObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
    const raw = header(declaration.header);
    if (value === undefined || value === null) continue; // the client must omit the header; nothing to compare
    if (raw === undefined) return `${declaration.display} header is missing; the body has ${describeValue(value)} at /${declaration.path.join("/")}`;
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return `${declaration.display} header value is not a valid header value`;
    if (!sameValue(decoded, value)) {
      return `${declaration.display} header value ${JSON.stringify(decoded)} does not match body value ${describeValue(value)}`;
    }
  }
  return undefined;
}

function sameValue(header: string, body: unknown): boolean {
  if (typeof body === "string") return header === body;
  if (typeof body === "number") return header.trim() !== "" && Number(header) === body;
  if (typeof body === "boolean") return header === String(body);
  return false;
}
