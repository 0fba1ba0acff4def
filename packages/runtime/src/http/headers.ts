/**
 * 2026-07-28 request metadata headers: `Mcp-Method`, `Mcp-Name` and the `Mcp-Param-*` headers that tools
 * declare with `x-mcp-header`, checked against the body. Any disagreement is a `HeaderMismatch`.
 */
import type { WireTool } from "../registry.js";
import { clip, describeValue, isObject, META_PROTOCOL_VERSION } from "../protocol.js";

/** Decodes the `=?base64?…?=` sentinel form of a header value; `undefined` when it is malformed. */
export function decodeHeaderValue(value: string): string | undefined {
  if (!value.startsWith("=?base64?") || !value.endsWith("?=") || value.length < 11) return isPlainValue(value) ? value : undefined;
  const encoded = value.slice(9, -2);
  if (!BASE64.test(encoded) || encoded.length % 4 !== 0) return undefined;
  try {
    const binary = atob(encoded);
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** The text between `=?base64?` and `?=`. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/**
 * Whether every character is one a plain header value may carry (RFC 9110 field values: visible ASCII, space,
 * tab). A loop: a header on every 2026-era request (`Mcp-Name`) is a few characters, and a regular expression
 * cost ten times as much to run on it.
 */
function isPlainValue(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if ((code < 0x20 && code !== 0x09) || code > 0x7e) return false;
  }
  return true;
}

/** The member of `params` that `Mcp-Name` mirrors, per method (a string constant: nothing made per request). */
function nameMember(method: string): "name" | "uri" | "taskId" | undefined {
  if (method === "tools/call" || method === "prompts/get") return "name";
  if (method === "resources/read") return "uri";
  if (method === "tasks/get" || method === "tasks/update" || method === "tasks/cancel") return "taskId";
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
export function paramHeaderProblem(declarations: readonly ParamHeader[], args: unknown, request: RequestHeaders): string | undefined {
  for (const declaration of declarations) {
    let value: unknown = args;
    for (const key of declaration.path) value = isObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
    const raw = request.header(declaration.header);
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

/** A disagreement between the headers and the body: the kind of error it is answered with, and why. */
export interface HeaderProblem {
  readonly kind: "headerMismatch" | "invalidParams";
  readonly message: string;
}

/** A request's headers by lower-case name (an `HttpInput`). */
export interface RequestHeaders {
  header(name: string): string | undefined;
}

/**
 * 2026 era: the headers a request must carry and their agreement with its body — `MCP-Protocol-Version`
 * (`version`, read by the caller) with `_meta`'s version claim, `Mcp-Method` with the method, `Mcp-Name` with
 * the name (or URI), and the tool's `Mcp-Param-*` headers with its arguments (`toolHeaders`, by tool name).
 */
export function modernHeaderProblem(
  request: RequestHeaders,
  version: string | undefined,
  method: string,
  params: Record<string, unknown> | undefined,
  claim: unknown,
  toolHeaders: { get(tool: string): readonly ParamHeader[] },
): HeaderProblem | undefined {
  if (version === undefined) return mismatch("the MCP-Protocol-Version header is required");
  if (claim === undefined) {
    return { kind: "invalidParams", message: `Invalid params: missing _meta["${META_PROTOCOL_VERSION}"] (MCP-Protocol-Version is ${version}); send it on every request` };
  }
  if (version !== claim) {
    return mismatch(`MCP-Protocol-Version header value '${version}' does not match body value ${typeof claim === "string" ? `'${clip(claim)}'` : describeValue(claim)}`);
  }
  const methodHeader = request.header("mcp-method");
  if (methodHeader === undefined) return mismatch("the Mcp-Method header is required");
  if (methodHeader !== method) return mismatch(`Mcp-Method header value '${methodHeader}' does not match body value '${method}'`);
  const member = nameMember(method);
  if (member === undefined) return undefined;
  const value = params?.[member];
  const raw = request.header("mcp-name");
  if (raw === undefined) return mismatch("the Mcp-Name header is required");
  const name = decodeHeaderValue(raw);
  if (name === undefined) return mismatch("the Mcp-Name header value is malformed");
  if (name !== value) {
    return mismatch(`Mcp-Name header value '${name}' does not match body value ${typeof value === "string" ? `'${clip(value)}'` : describeValue(value)}`);
  }
  if (method === "tools/call" && typeof value === "string") {
    const problem = paramHeaderProblem(toolHeaders.get(value), params?.arguments, request);
    if (problem) return mismatch(problem);
  }
  return undefined;
}

function mismatch(message: string): HeaderProblem {
  return { kind: "headerMismatch", message: `Header mismatch: ${message}` };
}

/**
 * 2025 era, in a session: the version is the header's (the one `initialize` agreed on, when a 2025-03-26
 * client sends none); a body whose `_meta` claims another one is a header mismatch, not a request of that era.
 */
export function versionClaimProblem(claim: unknown, version: string | undefined): string | undefined {
  if (claim === undefined || claim === version) return undefined;
  const body = typeof claim === "string" ? `'${claim.length > 120 ? `${claim.slice(0, 120)}…` : claim}'` : `a ${claim === null ? "null" : typeof claim}`;
  return `Header mismatch: MCP-Protocol-Version header value '${String(version)}' does not match body value ${body} in _meta["${META_PROTOCOL_VERSION}"]`;
}

/** The version a message's `_meta` claims, if it is a message with one. */
export function versionClaim(message: unknown): unknown {
  const params = isObject(message) && isObject(message.params) ? message.params : undefined;
  return params && isObject(params._meta) ? params._meta[META_PROTOCOL_VERSION] : undefined;
}
