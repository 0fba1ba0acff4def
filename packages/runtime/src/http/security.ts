/**
 * The checks every request passes before the protocol sees it: Host and Origin (DNS rebinding), CORS,
 * content negotiation, and the bearer-token helper for the `authenticate` hook.
 */
import { AuthError, type Authenticate, type AuthInfo, type ResolvedHttpOptions } from "./options.js";

/** The host name of a `Host` header value (`example.com:8080` → `example.com`, `[::1]:80` → `[::1]`). */
export function hostName(host: string): string {
  const value = host.trim().toLowerCase();
  if (value.startsWith("[")) {
    const end = value.indexOf("]");
    return end === -1 ? value : value.slice(0, end + 1);
  }
  const colon = value.indexOf(":");
  return colon === -1 ? value : value.slice(0, colon);
}

/** Whether the `Host` header names an allowed host. A missing Host (HTTP/1.0) is refused when checking. */
export function hostAllowed(options: ResolvedHttpOptions, host: string | undefined): boolean {
  if (!options.allowedHosts) return true;
  return host !== undefined && options.allowedHosts.has(hostName(host));
}

/**
 * Whether the `Origin` header is acceptable: absent (not a browser), listed, allowed by CORS, or naming an
 * allowed host. `null` (opaque origins: sandboxed frames, files) is refused.
 */
export function originAllowed(options: ResolvedHttpOptions, origin: string | undefined): boolean {
  if (origin === undefined || !options.allowedOrigins) return true;
  const value = origin.toLowerCase();
  if (options.allowedOrigins.has(value)) return true;
  if (options.cors && (options.cors.origins === "*" || options.cors.origins.some((allowed) => allowed.toLowerCase() === value))) return true;
  if (options.allowedOrigins.size > 0) return false; // an explicit list replaces the same-host default
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  return options.allowedHosts ? options.allowedHosts.has(hostName(url.host)) : true;
}

/** The CORS headers of a response to `origin`, or none (CORS off, no Origin, or an origin not allowed). */
export function corsHeaders(options: ResolvedHttpOptions, origin: string | undefined): Record<string, string> | undefined {
  const cors = options.cors;
  if (!cors || origin === undefined) return undefined;
  if (cors.origins !== "*" && !cors.origins.some((allowed) => allowed.toLowerCase() === origin.toLowerCase())) return undefined;
  return {
    "access-control-allow-origin": cors.origins === "*" ? "*" : origin,
    "access-control-expose-headers": "mcp-session-id, mcp-protocol-version, www-authenticate",
    ...(cors.origins !== "*" && { vary: "origin" }),
  };
}

/** Extra headers of a CORS preflight answer. */
export function preflightHeaders(options: ResolvedHttpOptions, requestedHeaders: string | undefined): Record<string, string> {
  return {
    "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
    "access-control-allow-headers":
      requestedHeaders ?? "content-type, accept, authorization, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id",
    "access-control-max-age": String(options.cors?.maxAgeS ?? 600),
  };
}

/** The media type of a Content-Type value, without parameters, lower-cased. */
export function mediaType(value: string | undefined): string {
  if (value === undefined) return "";
  if (value === "application/json") return value; // what a POST carries: nothing to take apart or lower-case
  const semicolon = value.indexOf(";");
  return (semicolon === -1 ? value : value.slice(0, semicolon)).trim().toLowerCase();
}

/** What an `Accept` header allows: JSON, SSE. A missing header accepts anything. */
export function accepts(accept: string | undefined): { json: boolean; sse: boolean } {
  if (accept === undefined || accept.trim() === "") return { json: true, sse: true };
  let json = false;
  let sse = false;
  for (const part of accept.split(",")) {
    const [range = "", ...params] = part.split(";");
    if (params.some((param) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(param))) continue; // q=0: explicitly not acceptable
    const type = range.trim().toLowerCase();
    if (type === "*/*") return { json: true, sse: true };
    if (type === "application/json" || type === "application/*") json = true;
    if (type === "text/event-stream" || type === "text/*") sse = true;
  }
  return { json, sse };
}

export interface BearerAuthOptions {
  /** Scopes every request must hold (checked against `AuthInfo.scopes`). */
  requiredScopes?: readonly string[];
  /** The time in ms, for `expiresAt` (default `Date.now`; tests advance their own). */
  clock?: () => number;
}

/**
 * An `authenticate` hook for `Authorization: Bearer <token>`: `verify` resolves the token to the caller's
 * identity, or `undefined` (or throws) when it is not valid. Expired tokens (`expiresAt` in the past) and
 * missing scopes are refused.
 */
export function bearerAuth(
  verify: (token: string) => AuthInfo | undefined | Promise<AuthInfo | undefined>,
  options: BearerAuthOptions = {},
): Authenticate {
  return async (request) => {
    const header = request.header("authorization");
    if (header === undefined) return undefined;
    const match = /^Bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)[ \t]*$/i.exec(header);
    if (!match) throw new AuthError("Malformed Authorization header: expected a bearer token", "invalid_request");
    const token = match[1] as string;
    let info: AuthInfo | undefined;
    try {
      info = await verify(token);
    } catch (error) {
      if (error instanceof AuthError) throw error;
      throw new AuthError("The token could not be verified");
    }
    if (!info) throw new AuthError("Invalid token");
    if (info.expiresAt !== undefined && info.expiresAt * 1000 <= (options.clock ?? Date.now)()) throw new AuthError("Token expired");
    const missing = (options.requiredScopes ?? []).filter((scope) => !info.scopes?.includes(scope));
    if (missing.length > 0) throw new AuthError(`Missing scope: ${missing.join(" ")}`, "insufficient_scope");
    return info.token === undefined ? { ...info, token } : info;
  };
}

/** The `WWW-Authenticate` challenge of a 401 (or 403 insufficient_scope) answer. */
export function challenge(options: ResolvedHttpOptions, error?: AuthError): string {
  const params = ['realm="mcp"'];
  if (error) {
    params.push(`error="${error.error}"`);
    params.push(`error_description="${error.message.replace(/["\\\r\n]/g, " ")}"`);
  }
  if (options.resourceMetadataUrl !== undefined) params.push(`resource_metadata="${options.resourceMetadataUrl.replace(/["\\\r\n]/g, "")}"`);
  return `Bearer ${params.join(", ")}`;
}
