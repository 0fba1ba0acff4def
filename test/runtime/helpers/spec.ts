/**
 * The MCP spec JSON Schemas as a test oracle: every message the server emits is checked against the schema
 * of the protocol version in force. Read from ../shared/mcp-spec (next to the repo, or MCP_SPEC_DIR), never
 * copied in.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import AjvDraft7Module from "ajv";
import Ajv2020Module from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { ValidateFunction } from "ajv";

// ajv and ajv-formats are CommonJS with `exports.default`; under NodeNext the default import is the module.
const AjvDraft7 = AjvDraft7Module.default;
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
/** ../shared/mcp-spec beside the repository, unless MCP_SPEC_DIR says where (`.ci/run` sets it). */
export const SPEC_DIR = process.env.MCP_SPEC_DIR ? resolve(process.env.MCP_SPEC_DIR) : resolve(REPO_ROOT, "../shared/mcp-spec");

export const SPEC_VERSIONS = ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const;
export type SpecVersion = (typeof SPEC_VERSIONS)[number];

/** The result definition of each request method the runtime answers. */
const RESULT_DEFS: Record<string, string> = {
  initialize: "InitializeResult",
  ping: "EmptyResult",
  "logging/setLevel": "EmptyResult",
  "tools/list": "ListToolsResult",
  "tools/call": "CallToolResult",
  "server/discover": "DiscoverResult",
  "resources/list": "ListResourcesResult",
  "resources/templates/list": "ListResourceTemplatesResult",
  "resources/read": "ReadResourceResult",
  "resources/subscribe": "EmptyResult",
  "resources/unsubscribe": "EmptyResult",
  "prompts/list": "ListPromptsResult",
  "prompts/get": "GetPromptResult",
  "completion/complete": "CompleteResult",
  "subscriptions/listen": "SubscriptionsListenResult",
};

/** 2026-07-28 names the standard JSON-RPC errors; each error object is checked against its own definition. */
const ERROR_DEFS_2026: Record<number, string> = {
  [-32700]: "ParseError",
  [-32600]: "InvalidRequestError",
  [-32601]: "MethodNotFoundError",
  [-32602]: "InvalidParamsError",
  [-32603]: "InternalError",
};

const NOTIFICATION_DEFS: Record<string, string> = {
  "notifications/progress": "ProgressNotification",
  "notifications/message": "LoggingMessageNotification",
  "notifications/tools/list_changed": "ToolListChangedNotification",
  "notifications/resources/list_changed": "ResourceListChangedNotification",
  "notifications/prompts/list_changed": "PromptListChangedNotification",
  "notifications/resources/updated": "ResourceUpdatedNotification",
  "notifications/subscriptions/acknowledged": "SubscriptionsAcknowledgedNotification",
};

interface VersionSchemas {
  defs: string;
  validate(def: string): ValidateFunction;
}

const cache = new Map<SpecVersion, VersionSchemas>();

function schemas(version: SpecVersion): VersionSchemas {
  const cached = cache.get(version);
  if (cached) return cached;
  const file = resolve(SPEC_DIR, `${version}.schema.json`);
  if (!existsSync(file)) {
    throw new Error(
      `MCP spec schema ${file} is missing. The tests validate every server message against ../shared/mcp-spec/<version>.schema.json next to the repository (or in MCP_SPEC_DIR); restore that folder.`,
    );
  }
  const schema = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  const draft2020 = String(schema.$schema).includes("2020-12");
  const ajv = draft2020 ? new Ajv2020({ strict: false, allErrors: true }) : new AjvDraft7({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(schema, "mcp");
  const defs = draft2020 ? "$defs" : "definitions";
  const compiled = new Map<string, ValidateFunction>();
  const entry: VersionSchemas = {
    defs,
    validate(def) {
      const known = compiled.get(def);
      if (known) return known;
      const fn = ajv.compile({ $ref: `mcp#/${defs}/${def}` });
      compiled.set(def, fn);
      return fn;
    },
  };
  cache.set(version, entry);
  return entry;
}

function check(version: SpecVersion, def: string, value: unknown, what: string): void {
  const validate = schemas(version).validate(def);
  if (!validate(value)) {
    throw new Error(
      `${what} is not a valid ${def} of MCP ${version}:\n${JSON.stringify(validate.errors, null, 2)}\nmessage: ${JSON.stringify(value)}`,
    );
  }
}

export interface MessageContext {
  /** The method of the request a response answers (picks the result definition). */
  method?: string | undefined;
}

/**
 * Throws unless `message` — something the server sent — is valid for MCP `version`: the JSON-RPC envelope,
 * the specific result / error / notification definition, and the schema's `JSONRPCMessage` union.
 */
export function assertServerMessage(message: unknown, version: SpecVersion, context: MessageContext = {}): void {
  const m = message as Record<string, unknown>;
  const what = `server message${context.method ? ` (answer to ${context.method})` : ""}`;
  const legacyEnvelope = version === "2025-03-26" || version === "2025-06-18";
  if ("result" in m) {
    check(version, legacyEnvelope ? "JSONRPCResponse" : "JSONRPCResultResponse", m, what);
    const inputRequired = version === "2026-07-28" && (m.result as { resultType?: unknown } | undefined)?.resultType === "input_required";
    const def = context.method ? (inputRequired ? "InputRequiredResult" : RESULT_DEFS[context.method]) : undefined;
    if (context.method && !def) throw new Error(`no result definition known for ${context.method}`);
    if (def) check(version, def, m.result, `${what}.result`);
  } else if ("error" in m) {
    // 2025-03-26 and 2025-06-18 require an id on errors, yet an error about an unreadable request has none
    // (JSON-RPC's `null` is not an MCP RequestId); check everything else with a stand-in id.
    const envelope = legacyEnvelope && !("id" in m) ? { ...m, id: 0 } : m;
    check(version, legacyEnvelope ? "JSONRPCError" : "JSONRPCErrorResponse", envelope, what);
    const error = m.error as { code?: number };
    if (version === "2026-07-28") {
      if (error.code === -32022) check(version, "UnsupportedProtocolVersionError", m, what);
      const def = error.code === undefined ? undefined : ERROR_DEFS_2026[error.code];
      if (def) check(version, def, error, `${what}.error`);
    }
  } else if ("method" in m && !("id" in m)) {
    check(version, "JSONRPCNotification", m, what);
    const def = NOTIFICATION_DEFS[m.method as string];
    if (def) check(version, def, m, what);
    check(version, "ServerNotification", m, what);
  } else if ("method" in m && "id" in m) {
    // A server→client request (2025 era: elicitation, sampling, roots).
    check(version, "JSONRPCRequest", m, what);
    check(version, "ServerRequest", m, what);
  } else {
    throw new Error(`the server sent something that is neither a response, a request nor a notification: ${JSON.stringify(m)}`);
  }
  check(version, "JSONRPCMessage", legacyEnvelope && "error" in m && !("id" in m) ? { ...m, id: 0 } : m, what);
}

/** Checks an example message of the spec's examples folder against its own definition (oracle self-test). */
export function specExample(name: string, file: string): unknown {
  return JSON.parse(readFileSync(resolve(SPEC_DIR, "examples-2026-07-28", name, file), "utf8"));
}
