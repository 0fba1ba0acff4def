/**
 * The fallback oracle, for a checkout without the MCP spec JSON Schemas beside it: the message schemas the
 * official MCP SDKs publish. `@modelcontextprotocol/sdk` (v1, `types.js`) for 2025-03-26 and 2025-06-18,
 * `@modelcontextprotocol/core` (v2) for 2025-11-25 and 2026-07-28. Each definition the spec oracle checks is
 * mapped to its SDK equivalent per version; what the SDKs do not publish is listed in `SDK_CAVEATS`, which the
 * test run prints, so the fallback never checks less without saying so.
 */
import AjvModule from "ajv";
import * as v2 from "@modelcontextprotocol/core";
import * as v1 from "@modelcontextprotocol/sdk/types.js";
import type { Oracle, SpecVersion } from "./spec.js";

// ajv is CommonJS with `exports.default`; under NodeNext the default import is the module.
const Ajv = AjvModule.default;

/** A check returns the reasons a value fails, or undefined when it passes. */
type Check = (value: unknown) => string | undefined;

interface ZodLike {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: unknown } };
}

/** An SDK Zod schema as a check. */
function sdk(schema: ZodLike): Check {
  return (value) => {
    const parsed = schema.safeParse(value);
    return parsed.success ? undefined : JSON.stringify(parsed.error.issues, null, 2);
  };
}

const ajv = new Ajv({ strict: false, allErrors: true });

/** A wire member the SDK keeps private, written here from the 2026-07-28 spec text (listed in SDK_CAVEATS). */
function wire(schema: object): Check {
  const validate = ajv.compile(schema);
  return (value) => (validate(value) ? undefined : JSON.stringify(validate.errors, null, 2));
}

function all(...checks: Check[]): Check {
  return (value) => {
    const problems = checks.map((check) => check(value)).filter((problem) => problem !== undefined);
    return problems.length === 0 ? undefined : problems.join("\n");
  };
}

/** Every 2026-07-28 result names its kind. */
const RESULT_TYPE = { type: "object", required: ["resultType"], properties: { resultType: { type: "string" } } };
const resultType = wire(RESULT_TYPE);
/** …so every 2026-07-28 result response does, and every message that is one. */
const resultResponseType = wire({ if: { type: "object", required: ["result"] }, then: { properties: { result: RESULT_TYPE } } });
/** 2026-07-28 list and read results say how long they may be cached, and by whom. */
const cacheable = wire({
  type: "object",
  required: ["ttlMs", "cacheScope"],
  properties: { ttlMs: { type: "integer", minimum: 0 }, cacheScope: { enum: ["private", "public"] } },
});

/** 2026-07-28 `InputRequiredResult`: a result whose `inputRequests` map holds sampling, roots or elicitation requests. */
const inputRequiredResult = all(
  sdk(v2.ResultSchema),
  resultType,
  wire({
    type: "object",
    properties: { inputRequests: { type: "object" }, requestState: { type: "string" } },
  }),
  (value) => {
    const requests = (value as { inputRequests?: Record<string, unknown> } | null)?.inputRequests;
    if (requests === null || typeof requests !== "object") return undefined;
    const inputRequest = sdk(v2.CreateMessageRequestSchema);
    const alternatives = [inputRequest, sdk(v2.ListRootsRequestSchema), sdk(v2.ElicitRequestSchema)];
    const bad = Object.entries(requests).filter(([, request]) => alternatives.every((check) => check(request) !== undefined));
    return bad.length === 0 ? undefined : `inputRequests ${bad.map(([key]) => key).join(", ")}: neither a sampling, roots nor elicitation request`;
  },
);

/** 2026-07-28 `UnsupportedProtocolVersionError`: code -32022 with the requested and the supported versions. */
const unsupportedProtocolVersionError = all(
  sdk(v2.JSONRPCErrorResponseSchema),
  wire({
    type: "object",
    required: ["error"],
    properties: {
      error: {
        type: "object",
        required: ["code", "data"],
        properties: {
          code: { const: -32022 },
          data: {
            type: "object",
            required: ["requested", "supported"],
            properties: { requested: { type: "string" }, supported: { type: "array", items: { type: "string" } } },
          },
        },
      },
    },
  }),
);

/** The standard JSON-RPC errors 2026-07-28 names: the SDK's error object with the code fixed. */
function namedError(code: number): Check {
  return all(sdk(v2.JSONRPCErrorResponseSchema.shape.error as ZodLike), wire({ type: "object", properties: { code: { const: code } } }));
}

/** 2025-03-26 and 2025-06-18 from SDK v1; both revisions' definitions (their envelopes' older names included). */
const LEGACY: Record<string, Check> = {
  InitializeResult: sdk(v1.InitializeResultSchema),
  EmptyResult: sdk(v1.EmptyResultSchema),
  ListToolsResult: sdk(v1.ListToolsResultSchema),
  CallToolResult: sdk(v1.CallToolResultSchema),
  ListResourcesResult: sdk(v1.ListResourcesResultSchema),
  ListResourceTemplatesResult: sdk(v1.ListResourceTemplatesResultSchema),
  ReadResourceResult: sdk(v1.ReadResourceResultSchema),
  ListPromptsResult: sdk(v1.ListPromptsResultSchema),
  GetPromptResult: sdk(v1.GetPromptResultSchema),
  CompleteResult: sdk(v1.CompleteResultSchema),
  JSONRPCResponse: sdk(v1.JSONRPCResultResponseSchema),
  JSONRPCError: sdk(v1.JSONRPCErrorResponseSchema),
  JSONRPCNotification: sdk(v1.JSONRPCNotificationSchema),
  JSONRPCRequest: sdk(v1.JSONRPCRequestSchema),
  JSONRPCMessage: sdk(v1.JSONRPCMessageSchema),
  ProgressNotification: sdk(v1.ProgressNotificationSchema),
  LoggingMessageNotification: sdk(v1.LoggingMessageNotificationSchema),
  ToolListChangedNotification: sdk(v1.ToolListChangedNotificationSchema),
  ResourceListChangedNotification: sdk(v1.ResourceListChangedNotificationSchema),
  PromptListChangedNotification: sdk(v1.PromptListChangedNotificationSchema),
  ResourceUpdatedNotification: sdk(v1.ResourceUpdatedNotificationSchema),
  ServerNotification: sdk(v1.ServerNotificationSchema),
  ServerRequest: sdk(v1.ServerRequestSchema),
};

/** 2025-11-25 from SDK v2's core package. */
const V2025_11_25: Record<string, Check> = {
  InitializeResult: sdk(v2.InitializeResultSchema),
  EmptyResult: sdk(v2.EmptyResultSchema),
  ListToolsResult: sdk(v2.ListToolsResultSchema),
  CallToolResult: sdk(v2.CallToolResultSchema),
  ListResourcesResult: sdk(v2.ListResourcesResultSchema),
  ListResourceTemplatesResult: sdk(v2.ListResourceTemplatesResultSchema),
  ReadResourceResult: sdk(v2.ReadResourceResultSchema),
  ListPromptsResult: sdk(v2.ListPromptsResultSchema),
  GetPromptResult: sdk(v2.GetPromptResultSchema),
  CompleteResult: sdk(v2.CompleteResultSchema),
  JSONRPCResultResponse: sdk(v2.JSONRPCResultResponseSchema),
  JSONRPCErrorResponse: sdk(v2.JSONRPCErrorResponseSchema),
  JSONRPCNotification: sdk(v2.JSONRPCNotificationSchema),
  JSONRPCRequest: sdk(v2.JSONRPCRequestSchema),
  JSONRPCMessage: sdk(v2.JSONRPCMessageSchema),
  ProgressNotification: sdk(v2.ProgressNotificationSchema),
  LoggingMessageNotification: sdk(v2.LoggingMessageNotificationSchema),
  ToolListChangedNotification: sdk(v2.ToolListChangedNotificationSchema),
  ResourceListChangedNotification: sdk(v2.ResourceListChangedNotificationSchema),
  PromptListChangedNotification: sdk(v2.PromptListChangedNotificationSchema),
  ResourceUpdatedNotification: sdk(v2.ResourceUpdatedNotificationSchema),
  ServerNotification: sdk(v2.ServerNotificationSchema),
  ServerRequest: sdk(v2.ServerRequestSchema),
};

/**
 * 2026-07-28 from SDK v2's core package, whose schemas are the era-neutral shapes, plus the wire members of
 * this revision. No `initialize` and no server→client requests exist in this revision.
 */
const V2026_07_28: Record<string, Check> = {
  // `EmptyResult` is any `Result` here (it carries `resultType`); v2's EmptyResult is a closed empty object.
  EmptyResult: all(sdk(v2.ResultSchema), resultType),
  ListToolsResult: all(sdk(v2.ListToolsResultSchema), resultType, cacheable),
  CallToolResult: all(sdk(v2.CallToolResultSchema), resultType),
  DiscoverResult: all(sdk(v2.DiscoverResultSchema), resultType, cacheable),
  ListResourcesResult: all(sdk(v2.ListResourcesResultSchema), resultType, cacheable),
  ListResourceTemplatesResult: all(sdk(v2.ListResourceTemplatesResultSchema), resultType, cacheable),
  ReadResourceResult: all(sdk(v2.ReadResourceResultSchema), resultType, cacheable),
  ListPromptsResult: all(sdk(v2.ListPromptsResultSchema), resultType, cacheable),
  GetPromptResult: all(sdk(v2.GetPromptResultSchema), resultType),
  CompleteResult: all(sdk(v2.CompleteResultSchema), resultType),
  SubscriptionsListenResult: all(sdk(v2.SubscriptionsListenResultSchema), resultType),
  InputRequiredResult: inputRequiredResult,
  JSONRPCResultResponse: all(sdk(v2.JSONRPCResultResponseSchema), resultResponseType),
  JSONRPCErrorResponse: sdk(v2.JSONRPCErrorResponseSchema),
  JSONRPCNotification: sdk(v2.JSONRPCNotificationSchema),
  JSONRPCRequest: sdk(v2.JSONRPCRequestSchema),
  JSONRPCMessage: all(sdk(v2.JSONRPCMessageSchema), resultResponseType),
  ParseError: namedError(-32700),
  InvalidRequestError: namedError(-32600),
  MethodNotFoundError: namedError(-32601),
  InvalidParamsError: namedError(-32602),
  InternalError: namedError(-32603),
  UnsupportedProtocolVersionError: unsupportedProtocolVersionError,
  ProgressNotification: sdk(v2.ProgressNotificationSchema),
  LoggingMessageNotification: sdk(v2.LoggingMessageNotificationSchema),
  ToolListChangedNotification: sdk(v2.ToolListChangedNotificationSchema),
  ResourceListChangedNotification: sdk(v2.ResourceListChangedNotificationSchema),
  PromptListChangedNotification: sdk(v2.PromptListChangedNotificationSchema),
  ResourceUpdatedNotification: sdk(v2.ResourceUpdatedNotificationSchema),
  SubscriptionsAcknowledgedNotification: sdk(v2.SubscriptionsAcknowledgedNotificationSchema),
  ServerNotification: sdk(v2.ServerNotificationSchema),
};

const TABLES: Record<SpecVersion, Record<string, Check>> = {
  "2025-03-26": LEGACY,
  "2025-06-18": LEGACY,
  "2025-11-25": V2025_11_25,
  "2026-07-28": V2026_07_28,
};

/** What the fallback checks less than, or differently from, the spec schemas; printed with the run's oracle line. */
export const SDK_CAVEATS: readonly string[] = [
  "2025-03-26 and 2025-06-18 are checked against SDK v1's shapes, which are 2025-11-25's: members a later revision added (title, icons, structuredContent, resource_link content, …) are accepted for them too",
  "2026-07-28: SDK v2 publishes era-neutral shapes only; resultType, ttlMs/cacheScope, InputRequiredResult's members and UnsupportedProtocolVersionError's data are checked by schemas written from the spec text (test/runtime/helpers/sdk-oracle.ts)",
  "2026-07-28: an InputRequiredResult's elicitation requests are checked as 2025-11-25's (a URL-mode one needs elicitationId); ServerNotification also admits 2025's notifications/elicitation/complete",
  "the SDK accepts a malformed _meta serverInfo (it drops it) where the spec schemas reject it",
  "stricter than the spec schemas: a 2025 EmptyResult must be an empty object, and a completion holds at most 100 values",
];

export const sdkOracle: Oracle = {
  label: "the message schemas of the official MCP SDK packages (@modelcontextprotocol/sdk types.js for 2025-03-26 and 2025-06-18, @modelcontextprotocol/core for 2025-11-25 and 2026-07-28)",
  caveats: SDK_CAVEATS,
  problems(version, def, value) {
    const check = TABLES[version][def];
    if (!check) throw new Error(`${def} is not a definition of MCP ${version} (the SDK fallback oracle has no equivalent for it)`);
    return check(value);
  },
};
