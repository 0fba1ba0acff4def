/**
 * The 2026-era request headers against the body: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` (plain or
 * in the `=?base64?…?=` form) and the `Mcp-Param-*` headers a tool declares with `x-mcp-header`.
 */
import { describe, expect, it } from "vitest";
import { modernHeaderProblem, paramHeaders, type ParamHeader } from "../../../packages/runtime/src/http/headers.js";

const VERSION = "2026-07-28";
const base64 = (text: string): string => `=?base64?${Buffer.from(text, "utf8").toString("base64")}?=`;

/** A send_mail tool whose `to` and nested `options.priority` and `options.urgent` are mirrored into headers. */
const sendMail = paramHeaders({
  name: "send_mail",
  inputSchema: {
    type: "object",
    properties: {
      to: { type: "string", "x-mcp-header": "To" },
      options: {
        type: "object",
        properties: { priority: { type: "integer", "x-mcp-header": "Priority" }, urgent: { type: "boolean", "x-mcp-header": "Urgent" } },
      },
      body: { type: "string" },
    },
  },
});
const toolHeaders = { get: (tool: string): readonly ParamHeader[] => (tool === "send_mail" ? sendMail : []) };

/** The problem with a `method` request carrying `params` and `headers` (lower-case names). */
function problem(method: string, params: Record<string, unknown> | undefined, headers: Record<string, string>, claim: unknown = VERSION) {
  const request = { header: (name: string): string | undefined => headers[name] };
  return modernHeaderProblem(request, headers["mcp-protocol-version"], method, params, claim, toolHeaders);
}

const call = (args: Record<string, unknown>) => ({ name: "send_mail", arguments: args });
const callHeaders = (extra: Record<string, string> = {}) => ({ "mcp-protocol-version": VERSION, "mcp-method": "tools/call", "mcp-name": "send_mail", ...extra });

describe("2026-era header checks", () => {
  it("finds a tool's x-mcp-header properties, nested ones too", () => {
    expect(sendMail).toEqual([
      { path: ["to"], header: "mcp-param-to", display: "Mcp-Param-To" },
      { path: ["options", "priority"], header: "mcp-param-priority", display: "Mcp-Param-Priority" },
      { path: ["options", "urgent"], header: "mcp-param-urgent", display: "Mcp-Param-Urgent" },
    ]);
  });

  it("accepts headers that agree with the body", () => {
    expect(problem("tools/list", {}, { "mcp-protocol-version": VERSION, "mcp-method": "tools/list" })).toBeUndefined();
    const args = { to: "ann@example.com", options: { priority: 2, urgent: false } };
    expect(problem("tools/call", call(args), callHeaders({ "mcp-param-to": "ann@example.com", "mcp-param-priority": "2", "mcp-param-urgent": "false" }))).toBeUndefined();
    // a value the body leaves out needs no header; a non-ASCII one comes base64-encoded, the name too
    expect(problem("tools/call", call({ to: "zoë@example.com" }), callHeaders({ "mcp-param-to": base64("zoë@example.com") }))).toBeUndefined();
    expect(problem("resources/read", { uri: "file:///ä" }, { "mcp-protocol-version": VERSION, "mcp-method": "resources/read", "mcp-name": base64("file:///ä") })).toBeUndefined();
    // a plain value may hold spaces and tabs (RFC 9110 field values)
    expect(problem("tools/call", call({ to: "Ann\t<ann@example.com>" }), callHeaders({ "mcp-param-to": "Ann\t<ann@example.com>" }))).toBeUndefined();
  });

  it.each([
    ["no MCP-Protocol-Version", "tools/list", {}, { "mcp-method": "tools/list" }, VERSION, /MCP-Protocol-Version header is required/],
    ["a version other than the body's", "tools/list", {}, { "mcp-protocol-version": "2025-11-25", "mcp-method": "tools/list" }, VERSION, /header value '2025-11-25' does not match body value '2026-07-28'/],
    ["no Mcp-Method", "tools/list", {}, { "mcp-protocol-version": VERSION }, VERSION, /Mcp-Method header is required/],
    ["another Mcp-Method", "tools/list", {}, { "mcp-protocol-version": VERSION, "mcp-method": "prompts/list" }, VERSION, /'prompts\/list' does not match body value 'tools\/list'/],
    ["no Mcp-Name", "tools/call", call({}), { "mcp-protocol-version": VERSION, "mcp-method": "tools/call" }, VERSION, /Mcp-Name header is required/],
    ["another Mcp-Name", "tools/call", call({}), callHeaders({ "mcp-name": "other" }), VERSION, /'other' does not match body value 'send_mail'/],
    ["a malformed base64 Mcp-Name", "tools/call", call({}), callHeaders({ "mcp-name": "=?base64?%%%?=" }), VERSION, /Mcp-Name header value is malformed/],
    ["a plain Mcp-Name that is not visible ASCII", "tools/call", call({}), callHeaders({ "mcp-name": "send_mail\u00e9" }), VERSION, /Mcp-Name header value is malformed/],
    ["a plain Mcp-Name with a control character", "tools/call", call({}), callHeaders({ "mcp-name": "send\u0001mail" }), VERSION, /Mcp-Name header value is malformed/],
    ["a plain Mcp-Name ending in DEL", "tools/call", call({}), callHeaders({ "mcp-name": "send_mail\u007f" }), VERSION, /Mcp-Name header value is malformed/],
    ["a missing Mcp-Param header", "tools/call", call({ options: { priority: 1 } }), callHeaders(), VERSION, /Mcp-Param-Priority header is missing; the body has 1 at \/options\/priority/],
    ["another Mcp-Param value", "tools/call", call({ to: "ann@example.com" }), callHeaders({ "mcp-param-to": "bob@example.com" }), VERSION, /Mcp-Param-To header value "bob@example.com" does not match/],
    ["a number that is not the body's", "tools/call", call({ options: { priority: 2 } }), callHeaders({ "mcp-param-priority": " " }), VERSION, /Mcp-Param-Priority header value " " does not match/],
    ["a boolean that is not the body's", "tools/call", call({ options: { urgent: true } }), callHeaders({ "mcp-param-urgent": "1" }), VERSION, /Mcp-Param-Urgent header value "1" does not match/],
  ])("refuses %s as a header mismatch", (_what, method, params, headers, claim, message) => {
    expect(problem(method, params, headers, claim)).toEqual({ kind: "headerMismatch", message: expect.stringMatching(message) });
  });

  it("calls a request without the envelope's version invalid params, not a header mismatch", () => {
    const headers: Record<string, string> = { "mcp-protocol-version": VERSION, "mcp-method": "tools/list" };
    const request = { header: (name: string): string | undefined => headers[name] };
    expect(modernHeaderProblem(request, VERSION, "tools/list", {}, undefined, toolHeaders)).toEqual({
      kind: "invalidParams",
      message: expect.stringMatching(/missing _meta\["io.modelcontextprotocol\/protocolVersion"\]/),
    });
  });
});
