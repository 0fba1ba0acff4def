/**
 * The oracle's own tests: whichever oracle checks this run's messages (and the SDK fallback too when the spec
 * schemas are the active one) rejects known-bad messages, accepts known-good ones and genuine messages from
 * independent sources, and is chosen as the README says.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sdkServerMessages, specExamples, type ReferenceMessage } from "./helpers/reference-messages.js";
import { sdkOracle } from "./helpers/sdk-oracle.js";
import { activeOracle, assertServerMessageWith, chooseOracle, describeOracle, type MessageContext, type Oracle, type SpecVersion } from "./helpers/spec.js";

const active = activeOracle();
const oracles: { name: string; oracle: Oracle }[] = [{ name: `the active oracle (${active.reason})`, oracle: active.oracle }];
if (active.oracle !== sdkOracle) oracles.push({ name: "the SDK fallback oracle", oracle: sdkOracle });

interface Case {
  name: string;
  version: SpecVersion;
  message: unknown;
  context?: MessageContext;
}

const serverInfo = { name: "demo", version: "1.0.0" };
const text = { type: "text", text: "hi" };
const tool = { name: "echo", inputSchema: { type: "object", properties: {} } };
const cache = { ttlMs: 0, cacheScope: "private" };

const good: Case[] = [
  { name: "a 2025-03-26 initialize result", version: "2025-03-26", context: { method: "initialize" }, message: { jsonrpc: "2.0", id: 1, result: { protocolVersion: "2025-03-26", capabilities: { tools: {} }, serverInfo } } },
  { name: "a 2025-03-26 error without an id", version: "2025-03-26", message: { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } } },
  { name: "a 2025-06-18 tools/call result with structured content", version: "2025-06-18", context: { method: "tools/call" }, message: { jsonrpc: "2.0", id: "a", result: { content: [text], structuredContent: { n: 1 } } } },
  { name: "a 2025-06-18 elicitation request", version: "2025-06-18", message: { jsonrpc: "2.0", id: 7, method: "elicitation/create", params: { message: "Name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } } } },
  { name: "a 2025-11-25 tools/list result", version: "2025-11-25", context: { method: "tools/list" }, message: { jsonrpc: "2.0", id: 2, result: { tools: [tool], nextCursor: "c" } } },
  { name: "a 2025-11-25 progress notification", version: "2025-11-25", message: { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: "t", progress: 1, total: 2 } } },
  { name: "a 2026-07-28 tools/list result", version: "2026-07-28", context: { method: "tools/list" }, message: { jsonrpc: "2.0", id: 3, result: { resultType: "complete", tools: [tool], ...cache } } },
  { name: "a 2026-07-28 ping result", version: "2026-07-28", context: { method: "ping" }, message: { jsonrpc: "2.0", id: 4, result: { resultType: "complete", _meta: { "io.modelcontextprotocol/serverInfo": serverInfo } } } },
  {
    name: "a 2026-07-28 input-required result",
    version: "2026-07-28",
    context: { method: "tools/call" },
    message: {
      jsonrpc: "2.0",
      id: 5,
      result: {
        resultType: "input_required",
        inputRequests: { ask: { method: "elicitation/create", params: { mode: "form", message: "Name?", requestedSchema: { type: "object", properties: { name: { type: "string" } } } } } },
        requestState: "opaque",
      },
    },
  },
  { name: "a 2026-07-28 unsupported-version error", version: "2026-07-28", message: { jsonrpc: "2.0", id: 6, error: { code: -32022, message: "Unsupported protocol version", data: { requested: "1999-01-01", supported: ["2026-07-28"] } } } },
  { name: "a 2026-07-28 method-not-found error", version: "2026-07-28", message: { jsonrpc: "2.0", id: 7, error: { code: -32601, message: "Method not found" } } },
  { name: "a 2026-07-28 subscription acknowledgement", version: "2026-07-28", message: { jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { notifications: { toolsListChanged: true } } } },
];

const bad: (Case & { want: RegExp })[] = [
  { name: "a result with jsonrpc 1.0", version: "2025-06-18", context: { method: "ping" }, message: { jsonrpc: "1.0", id: 1, result: {} }, want: /JSONRPCResponse/ },
  { name: "a result with a fractional id", version: "2025-11-25", context: { method: "ping" }, message: { jsonrpc: "2.0", id: 1.5, result: {} }, want: /JSONRPCResultResponse/ },
  { name: "a 2025-03-26 tools/call result with an unknown content type", version: "2025-03-26", context: { method: "tools/call" }, message: { jsonrpc: "2.0", id: 1, result: { content: [{ type: "video", url: "x" }] } }, want: /CallToolResult/ },
  { name: "a 2025-11-25 tools/list result without tools", version: "2025-11-25", context: { method: "tools/list" }, message: { jsonrpc: "2.0", id: 1, result: { nextCursor: "c" } }, want: /ListToolsResult/ },
  { name: "a 2025-11-25 tool without an input schema", version: "2025-11-25", context: { method: "tools/list" }, message: { jsonrpc: "2.0", id: 1, result: { tools: [{ name: "echo" }] } }, want: /ListToolsResult/ },
  { name: "a 2025-06-18 initialize result without serverInfo", version: "2025-06-18", context: { method: "initialize" }, message: { jsonrpc: "2.0", id: 1, result: { protocolVersion: "2025-06-18", capabilities: {} } }, want: /InitializeResult/ },
  { name: "an error whose message is a number", version: "2025-11-25", message: { jsonrpc: "2.0", id: 1, error: { code: -32601, message: 404 } }, want: /JSONRPCErrorResponse/ },
  { name: "a progress notification without its token", version: "2025-06-18", message: { jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1 } }, want: /ProgressNotification/ },
  { name: "a log message with an unknown level", version: "2025-11-25", message: { jsonrpc: "2.0", method: "notifications/message", params: { level: "loud", data: "x" } }, want: /LoggingMessageNotification/ },
  { name: "an elicitation request without a message", version: "2025-06-18", message: { jsonrpc: "2.0", id: 2, method: "elicitation/create", params: { requestedSchema: { type: "object", properties: {} } } }, want: /ServerRequest/ },
  { name: "a 2026-07-28 tools/call result without resultType", version: "2026-07-28", context: { method: "tools/call" }, message: { jsonrpc: "2.0", id: 1, result: { content: [] } }, want: /resultType/ },
  { name: "a 2026-07-28 ping result without resultType", version: "2026-07-28", context: { method: "ping" }, message: { jsonrpc: "2.0", id: 1, result: {} }, want: /resultType/ },
  { name: "a 2026-07-28 tools/list result without ttlMs", version: "2026-07-28", context: { method: "tools/list" }, message: { jsonrpc: "2.0", id: 1, result: { resultType: "complete", tools: [], cacheScope: "public" } }, want: /ttlMs/ },
  { name: "a 2026-07-28 read result with an unknown cache scope", version: "2026-07-28", context: { method: "resources/read" }, message: { jsonrpc: "2.0", id: 1, result: { resultType: "complete", contents: [], ttlMs: 0, cacheScope: "everyone" } }, want: /ReadResourceResult/ },
  { name: "a 2026-07-28 discover result without supportedVersions", version: "2026-07-28", context: { method: "server/discover" }, message: { jsonrpc: "2.0", id: 1, result: { resultType: "complete", capabilities: {}, ...cache } }, want: /DiscoverResult/ },
  { name: "a 2026-07-28 input request of an unknown method", version: "2026-07-28", context: { method: "tools/call" }, message: { jsonrpc: "2.0", id: 1, result: { resultType: "input_required", inputRequests: { a: { method: "tools/call", params: {} } } } }, want: /InputRequiredResult/ },
  { name: "a 2026-07-28 unsupported-version error without data", version: "2026-07-28", message: { jsonrpc: "2.0", id: 1, error: { code: -32022, message: "Unsupported protocol version" } }, want: /UnsupportedProtocolVersionError/ },
  { name: "a 2026-07-28 unsupported-version error with a numeric requested version", version: "2026-07-28", message: { jsonrpc: "2.0", id: 1, error: { code: -32022, message: "Unsupported", data: { requested: 1, supported: [] } } }, want: /UnsupportedProtocolVersionError/ },
  { name: "a 2026-07-28 listen result without its subscription id", version: "2026-07-28", context: { method: "subscriptions/listen" }, message: { jsonrpc: "2.0", id: 1, result: { resultType: "complete", _meta: {} } }, want: /SubscriptionsListenResult/ },
  { name: "a 2026-07-28 acknowledgement without notifications", version: "2026-07-28", message: { jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: {} }, want: /SubscriptionsAcknowledgedNotification/ },
  { name: "a 2026-07-28 server-to-client request (the revision has none)", version: "2026-07-28", message: { jsonrpc: "2.0", id: 1, method: "roots/list" }, want: /ServerRequest is not a definition of MCP 2026-07-28/ },
  { name: "a 2026-07-28 initialize result (the revision has none)", version: "2026-07-28", context: { method: "initialize" }, message: { jsonrpc: "2.0", id: 1, result: { resultType: "complete", protocolVersion: "2026-07-28", capabilities: {}, serverInfo } }, want: /InitializeResult is not a definition of MCP 2026-07-28/ },
];

describe.each(oracles)("$name", ({ oracle }) => {
  it.each(good)("accepts $name", ({ message, version, context }) => {
    expect(() => assertServerMessageWith(oracle, message, version, context)).not.toThrow();
  });

  it.each(bad)("rejects $name", ({ message, version, context, want }) => {
    expect(() => assertServerMessageWith(oracle, message, version, context)).toThrow(want);
  });

  it("accepts the official SDK server's 2026-07-28 answers", async () => {
    const answers = await sdkServerMessages();
    expect(answers).toHaveLength(4);
    for (const { what, message, method } of answers) {
      expect(() => assertServerMessageWith(oracle, message, "2026-07-28", { method }), what).not.toThrow();
    }
  });

  // The spec's example messages lie beside the spec schemas; without them the SDK server's answers above are
  // the genuine messages the oracle is held to.
  if (active.specDir !== undefined) {
    const examples: ReferenceMessage[] = specExamples(active.specDir);
    it.each(examples)("accepts $what", ({ message, method }) => {
      expect(() => assertServerMessageWith(oracle, message, "2026-07-28", { method })).not.toThrow();
    });
  }
});

describe("choosing the oracle", () => {
  const root = mkdtempSync(join(tmpdir(), "mcpgen-oracle-"));
  const bare = join(root, "bare", "repo");
  const besideShared = join(root, "with-shared", "repo");
  mkdirSync(bare, { recursive: true });
  mkdirSync(join(root, "with-shared", "shared", "mcp-spec"), { recursive: true });
  mkdirSync(besideShared, { recursive: true });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const cases: { name: string; env: NodeJS.ProcessEnv; repo: string; want: RegExp }[] = [
    { name: "the spec schemas beside the repository", env: {}, repo: besideShared, want: /^spec .*with-shared\/shared\/mcp-spec \(found beside/ },
    { name: "the SDK schemas without them", env: {}, repo: bare, want: /^sdk .*\(no MCP_SPEC_DIR and no / },
    { name: "the folder MCP_SPEC_DIR names", env: { MCP_SPEC_DIR: join(root, "with-shared", "shared", "mcp-spec") }, repo: bare, want: /^spec .*\(MCP_SPEC_DIR\)/ },
    { name: "the SDK schemas when MCP_ORACLE=sdk", env: { MCP_ORACLE: "sdk" }, repo: besideShared, want: /^sdk .*\(MCP_ORACLE=sdk\)/ },
  ];
  it.each(cases)("picks $name", ({ env, repo, want }) => {
    const { oracle, reason } = chooseOracle(env, repo);
    expect(`${oracle === sdkOracle ? "sdk" : "spec"} ${oracle.label} (${reason})`).toMatch(want);
  });

  it("refuses an MCP_SPEC_DIR that does not exist, and MCP_ORACLE=spec without spec schemas", () => {
    expect(() => chooseOracle({ MCP_SPEC_DIR: join(root, "nowhere") }, bare)).toThrow(/MCP_SPEC_DIR=.*no such folder/);
    expect(() => chooseOracle({ MCP_ORACLE: "spec" }, bare)).toThrow(/MCP_ORACLE=spec, but/);
    expect(() => chooseOracle({ MCP_ORACLE: "zod" }, bare)).toThrow(/expected "spec" or "sdk"/);
  });

  it("says where the SDK fallback checks less, and how to use the spec schemas instead", () => {
    const line = describeOracle({ oracle: sdkOracle, reason: "test" });
    expect(line).toMatch(/^MCP message oracle: the message schemas of the official MCP SDK packages/);
    expect(line).toMatch(/Set MCP_SPEC_DIR/);
    for (const caveat of sdkOracle.caveats) expect(line).toContain(caveat);
  });
});
