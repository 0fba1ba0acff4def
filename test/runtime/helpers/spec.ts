/**
 * The test oracle: every message the server emits is checked against an independent definition of the MCP
 * message of the protocol version in force. That is the MCP spec JSON Schemas, read from ../shared/mcp-spec
 * beside the repository (or the folder MCP_SPEC_DIR names), never copied in; without them, the message schemas
 * the official MCP SDK packages publish (see sdk-oracle.ts). The run prints which one it used.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import AjvDraft7Module from "ajv";
import Ajv2020Module from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { ValidateFunction } from "ajv";
import { sdkOracle } from "./sdk-oracle.js";

// ajv and ajv-formats are CommonJS with `exports.default`; under NodeNext the default import is the module.
const AjvDraft7 = AjvDraft7Module.default;
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

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

/** An independent definition of MCP's messages. */
export interface Oracle {
  /** What the oracle is, for the run's oracle line. */
  readonly label: string;
  /** Where it checks less than, or differently from, the spec schemas. */
  readonly caveats: readonly string[];
  /** Why `value` is not a valid `def` of MCP `version`, or undefined when it is; throws for an unknown `def`. */
  problems(version: SpecVersion, def: string, value: unknown): string | undefined;
}

/** The spec JSON Schemas in `dir` (`<version>.schema.json`) as an oracle. */
export function specOracle(dir: string): Oracle {
  const versions = new Map<SpecVersion, (def: string) => ValidateFunction>();
  function validator(version: SpecVersion): (def: string) => ValidateFunction {
    const known = versions.get(version);
    if (known) return known;
    const file = resolve(dir, `${version}.schema.json`);
    if (!existsSync(file)) {
      throw new Error(`MCP spec schema ${file} is missing: MCP_SPEC_DIR (or ../shared/mcp-spec) must hold <version>.schema.json for ${SPEC_VERSIONS.join(", ")}`);
    }
    const schema = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    const draft2020 = String(schema.$schema).includes("2020-12");
    const ajv = draft2020 ? new Ajv2020({ strict: false, allErrors: true }) : new AjvDraft7({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(schema, "mcp");
    const defs = (draft2020 ? schema.$defs : schema.definitions) as Record<string, unknown>;
    const compiled = new Map<string, ValidateFunction>();
    const entry = (def: string): ValidateFunction => {
      const fn = compiled.get(def) ?? (def in defs ? ajv.compile({ $ref: `mcp#/${draft2020 ? "$defs" : "definitions"}/${def}` }) : undefined);
      if (!fn) throw new Error(`${def} is not a definition of MCP ${version} (${file})`);
      compiled.set(def, fn);
      return fn;
    };
    versions.set(version, entry);
    return entry;
  }
  return {
    label: `the MCP spec JSON Schemas in ${dir}`,
    caveats: [],
    problems(version, def, value) {
      const validate = validator(version)(def);
      return validate(value) ? undefined : JSON.stringify(validate.errors, null, 2);
    },
  };
}

export interface OracleChoice {
  oracle: Oracle;
  /** Why this oracle, for the run's oracle line. */
  reason: string;
  /** The spec folder when the oracle is the spec schemas (it also holds the spec's example messages). */
  specDir?: string;
}

/**
 * The spec schemas when there are any: in MCP_SPEC_DIR (which must exist when set) or else in ../shared/mcp-spec
 * beside the repository. Otherwise, or when MCP_ORACLE=sdk asks for it, the SDK packages' schemas.
 */
export function chooseOracle(env: NodeJS.ProcessEnv = process.env, repoRoot: string = REPO_ROOT): OracleChoice {
  if (env.MCP_ORACLE !== undefined && env.MCP_ORACLE !== "sdk" && env.MCP_ORACLE !== "spec") {
    throw new Error(`MCP_ORACLE=${env.MCP_ORACLE}: expected "spec" or "sdk"`);
  }
  if (env.MCP_ORACLE === "sdk") return { oracle: sdkOracle, reason: "MCP_ORACLE=sdk" };
  if (env.MCP_SPEC_DIR) {
    const dir = resolve(env.MCP_SPEC_DIR);
    if (!existsSync(dir)) throw new Error(`MCP_SPEC_DIR=${env.MCP_SPEC_DIR}: no such folder (it should hold the MCP spec <version>.schema.json files)`);
    return { oracle: specOracle(dir), reason: "MCP_SPEC_DIR", specDir: dir };
  }
  const beside = resolve(repoRoot, "../shared/mcp-spec");
  if (existsSync(beside)) return { oracle: specOracle(beside), reason: "found beside the repository", specDir: beside };
  if (env.MCP_ORACLE === "spec") throw new Error(`MCP_ORACLE=spec, but neither MCP_SPEC_DIR is set nor ${beside} exists`);
  return { oracle: sdkOracle, reason: `no MCP_SPEC_DIR and no ${beside}` };
}

let active: OracleChoice | undefined;

/** The oracle of this test run (chosen once per process). */
export function activeOracle(): OracleChoice {
  active ??= chooseOracle();
  return active;
}

/** The oracle line the test run prints once (see test/global-setup.ts). */
export function describeOracle({ oracle, reason }: OracleChoice = activeOracle()): string {
  const lines = [`MCP message oracle: ${oracle.label} (${reason}).`];
  if (oracle.caveats.length > 0) {
    lines.push("  Set MCP_SPEC_DIR to a folder of MCP spec <version>.schema.json files to check against the spec itself. This fallback differs from the spec schemas where:");
    for (const caveat of oracle.caveats) lines.push(`  - ${caveat}`);
  }
  return lines.join("\n");
}

function check(oracle: Oracle, version: SpecVersion, def: string, value: unknown, what: string): void {
  const problems = oracle.problems(version, def, value);
  if (problems !== undefined) {
    throw new Error(`${what} is not a valid ${def} of MCP ${version}:\n${problems}\nmessage: ${JSON.stringify(value)}`);
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
  assertServerMessageWith(activeOracle().oracle, message, version, context);
}

/** `assertServerMessage` against a given oracle (the oracle's own tests check both). */
export function assertServerMessageWith(oracle: Oracle, message: unknown, version: SpecVersion, context: MessageContext = {}): void {
  const m = message as Record<string, unknown>;
  const what = `server message${context.method ? ` (answer to ${context.method})` : ""}`;
  const legacyEnvelope = version === "2025-03-26" || version === "2025-06-18";
  if ("result" in m) {
    check(oracle, version, legacyEnvelope ? "JSONRPCResponse" : "JSONRPCResultResponse", m, what);
    const inputRequired = version === "2026-07-28" && (m.result as { resultType?: unknown } | undefined)?.resultType === "input_required";
    const def = context.method ? (inputRequired ? "InputRequiredResult" : RESULT_DEFS[context.method]) : undefined;
    if (context.method && !def) throw new Error(`no result definition known for ${context.method}`);
    if (def) check(oracle, version, def, m.result, `${what}.result`);
  } else if ("error" in m) {
    // 2025-03-26 and 2025-06-18 require an id on errors, yet an error about an unreadable request has none
    // (JSON-RPC's `null` is not an MCP RequestId); check everything else with a stand-in id.
    const envelope = legacyEnvelope && !("id" in m) ? { ...m, id: 0 } : m;
    check(oracle, version, legacyEnvelope ? "JSONRPCError" : "JSONRPCErrorResponse", envelope, what);
    const error = m.error as { code?: number };
    if (version === "2026-07-28") {
      if (error.code === -32022) check(oracle, version, "UnsupportedProtocolVersionError", m, what);
      const def = error.code === undefined ? undefined : ERROR_DEFS_2026[error.code];
      if (def) check(oracle, version, def, error, `${what}.error`);
    }
  } else if ("method" in m && !("id" in m)) {
    check(oracle, version, "JSONRPCNotification", m, what);
    const def = NOTIFICATION_DEFS[m.method as string];
    if (def) check(oracle, version, def, m, what);
    check(oracle, version, "ServerNotification", m, what);
  } else if ("method" in m && "id" in m) {
    // A server→client request (2025 era: elicitation, sampling, roots).
    check(oracle, version, "JSONRPCRequest", m, what);
    check(oracle, version, "ServerRequest", m, what);
  } else {
    throw new Error(`the server sent something that is neither a response, a request nor a notification: ${JSON.stringify(m)}`);
  }
  check(oracle, version, "JSONRPCMessage", legacyEnvelope && "error" in m && !("id" in m) ? { ...m, id: 0 } : m, what);
}
