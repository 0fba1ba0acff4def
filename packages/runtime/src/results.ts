/**
 * Every result the core serializes itself, in one place: the answers that are the same for every caller
 * (`server/discover`, `initialize`), built once, and the 2026-era result envelope (`resultType` first, the
 * server's `serverInfo` in `_meta`, caching hints) around what a request produced.
 */
import { resultResponse } from "./errors.js";
import { SUPPORTED_PROTOCOL_VERSIONS, type Era } from "./era.js";
import { idJson } from "./json.js";
import type { ResolvedServerOptions } from "./options.js";
import { META_SERVER_INFO, type RequestId } from "./protocol.js";
import type { Registry } from "./registry.js";
import { META_SUBSCRIPTION_ID } from "./subscriptions.js";

/** What the registry has: tools, resources (or templates), prompts, completions. */
export interface Kinds {
  readonly tools: boolean;
  readonly resources: boolean;
  readonly prompts: boolean;
  readonly completions: boolean;
}

export function kindsOf(registry: Registry): Kinds {
  const templates = registry.resourceTemplates ?? [];
  const hasCompletions = (entries: readonly { completions: object }[]): boolean => entries.some((entry) => Object.keys(entry.completions).length > 0);
  return {
    tools: registry.tools.length > 0,
    resources: (registry.resources?.length ?? 0) > 0 || templates.length > 0,
    prompts: (registry.prompts?.length ?? 0) > 0,
    completions: hasCompletions(registry.prompts ?? []) || hasCompletions(templates),
  };
}

/**
 * Capabilities assembled from the registry, the same in both eras: 2025-era sessions hear list changes
 * unasked (`resources/subscribe` for updates), 2026-era clients on `subscriptions/listen`.
 */
export function capabilitiesOf(kinds: Kinds): Record<string, unknown> {
  const capabilities: Record<string, unknown> = {};
  if (kinds.tools) capabilities.tools = { listChanged: true };
  if (kinds.resources) capabilities.resources = { subscribe: true, listChanged: true };
  if (kinds.prompts) capabilities.prompts = { listChanged: true };
  if (kinds.completions) capabilities.completions = {};
  capabilities.logging = {}; // handlers may call ctx.log()
  return capabilities;
}

type WithMeta = { readonly _meta?: Record<string, unknown> | undefined };

export class Results {
  /** 2026 era: `"ttlMs":…,"cacheScope":…` of results that are the same for every caller. */
  readonly cacheHints: string;
  /** The members every cacheable 2026-era result ends with: the caching hints and `_meta` with `serverInfo`. */
  readonly listTail: string;
  /** What every 2026-era result says of the server in `_meta` (`resultServerInfo`), or undefined for nothing. */
  readonly serverInfo: Readonly<Record<string, unknown>> | undefined;
  /** `,"_meta":{"io.modelcontextprotocol/serverInfo":{…}}` ending every 2026-era result, or "" with no server info. */
  readonly #serverInfoMeta: string;
  readonly #discover: string;
  readonly #initialize = new Map<string, string>();

  constructor(
    private readonly registry: Registry,
    options: ResolvedServerOptions,
    /** Per era: tasks are announced differently (see tasks/tasks.ts). */
    private readonly capabilities: Readonly<Record<Era, Record<string, unknown>>>,
  ) {
    this.serverInfo = resultServerInfo(registry.server, options.resultServerInfo);
    this.#serverInfoMeta = this.serverInfo ? `,"_meta":{${JSON.stringify(META_SERVER_INFO)}:${JSON.stringify(this.serverInfo)}}` : "";
    this.cacheHints = `"ttlMs":${options.ttlMs},"cacheScope":${JSON.stringify(options.cacheScope)}`;
    this.listTail = `${this.cacheHints}${this.#serverInfoMeta}`;
    const discover = {
      resultType: "complete",
      supportedVersions: SUPPORTED_PROTOCOL_VERSIONS,
      capabilities: capabilities.modern,
      ...(registry.instructions !== undefined && { instructions: registry.instructions }),
    };
    // Discovery is where a client learns who the server is: it carries the whole server info unless told "none".
    const fullMeta = this.serverInfo ? `,"_meta":{${JSON.stringify(META_SERVER_INFO)}:${JSON.stringify(registry.server)}}` : "";
    this.#discover = `${JSON.stringify(discover).slice(0, -1)},${this.cacheHints}${fullMeta}}`;
  }

  /** 2026 era: the `server/discover` result. */
  discover(): string {
    return this.#discover;
  }

  /** 2025 era: the `initialize` result for `version`, built once per version. */
  initialize(version: string): string {
    let result = this.#initialize.get(version);
    if (result === undefined) {
      result = JSON.stringify({
        protocolVersion: version,
        capabilities: this.capabilities.legacy,
        serverInfo: this.registry.server,
        ...(this.registry.instructions !== undefined && { instructions: this.registry.instructions }),
      });
      this.#initialize.set(version, result);
    }
    return result;
  }

  /** A 2026-era result object: `resultType` first, `serverInfo` merged into its `_meta`. */
  modern<R extends WithMeta>(result: R): string {
    if (result._meta === undefined) return this.modernOf(JSON.stringify(result).slice(1, -1));
    return JSON.stringify({ resultType: "complete", ...result, _meta: { ...result._meta, ...(this.serverInfo && { [META_SERVER_INFO]: this.serverInfo }) } });
  }

  /** The same, as a response to `id`. */
  modernResponse<R extends WithMeta>(id: RequestId, result: R): string {
    return resultResponse(id, this.modern(result));
  }

  /** The same for a result without `_meta` whose members are serialized already (`"content":[…],…`). */
  modernOf(members: string): string {
    return `{"resultType":"complete"${members && `,${members}`}${this.#serverInfoMeta}}`;
  }

  /** `resultResponse(id, this.modernOf(members))`, in one template. */
  modernMembersResponse(id: RequestId, members: string): string {
    return `{"jsonrpc":"2.0","id":${idJson(id)},"result":{"resultType":"complete"${members && `,${members}`}${this.#serverInfoMeta}}}`;
  }

  /** A 2026-era `input_required` result (multi round-trip requests). */
  inputRequired(inputRequests: Record<string, unknown>, requestState: string): string {
    return `{"resultType":"input_required","inputRequests":${JSON.stringify(inputRequests)},"requestState":${JSON.stringify(requestState)}${this.#serverInfoMeta}}`;
  }

  /** The response that ends a `subscriptions/listen` stream gracefully (the server tears it down). */
  listenEnded(id: RequestId): string {
    const server = this.serverInfo ? `,"${META_SERVER_INFO}":${JSON.stringify(this.serverInfo)}` : "";
    return resultResponse(id, `{"resultType":"complete","_meta":{"${META_SUBSCRIPTION_ID}":${idJson(id)}${server}}}`);
  }
}

/** The server info 2026-era results carry: `name` and `version` (what `Implementation` requires), all of it, or none. */
export function resultServerInfo(server: Registry["server"], mode: "brief" | "full" | "none"): Readonly<Record<string, unknown>> | undefined {
  if (mode === "none") return undefined;
  if (mode === "full") return server;
  return { name: server.name, version: server.version };
}
