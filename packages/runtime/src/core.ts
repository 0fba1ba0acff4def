/**
 * What a server holds for every client alike: the resolved options, the tools (loaded on first call), the
 * resources / prompts / completion runtime (loaded on the first request that needs it), the list pages and
 * serialized answers, server→client requests awaiting answers, and who hears about changes. Connections
 * and the requests they run reach it as `Services`; the public `Server` wraps it.
 */
import { LastLookup } from "./cache.js";
import type { Services } from "./context.js";
import type { Era } from "./era.js";
import type { ListKind } from "./handler.js";
import { Outgoing, RequestStateCodec } from "./input.js";
import { Lazy } from "./lazy.js";
import { Pages } from "./list.js";
import { resolveServerOptions, type ResolvedServerOptions, type ServerOptions } from "./options.js";
import type { Primitives } from "./primitives.js";
import type { Registry } from "./registry.js";
import { capabilitiesOf, kindsOf, resultServerInfo, Results, type Kinds } from "./results.js";
import { Subscriptions } from "./subscriptions.js";
import type { Bus } from "./state/bus.js";
import { taskMembers, Tasks } from "./tasks/tasks.js";
import { ToolSlot } from "./tool-slot.js";

/** The tool-call runtime (tool-calls.ts), as its loaded module. */
export type ToolCalls = typeof import("./tool-calls.js");

/** The lists a server serves, by method. */
export interface ListPages {
  readonly "tools/list": Pages;
  readonly "resources/list"?: Pages;
  readonly "resources/templates/list"?: Pages;
  readonly "prompts/list"?: Pages;
}

export class Core implements Services {
  readonly options: ResolvedServerOptions;
  readonly kinds: Kinds;
  /** The capabilities of each era (they differ in how tasks are announced). */
  readonly capabilities: Readonly<Record<Era, Record<string, unknown>>>;
  readonly results: Results;
  readonly tools = new Map<string, ToolSlot>();
  /** `tools.get`, the last name remembered (cache.ts). */
  readonly toolNamed = new LastLookup((name: string) => this.tools.get(name));
  /** Resources, prompts and completion: loaded on the first request that needs them. */
  readonly primitives: Lazy<Primitives>;
  /** The tool-call runtime (tool-calls.ts): loaded on the first `tools/call` or `tasks/*` request. */
  readonly toolCalls = new Lazy<ToolCalls>(() => import("./tool-calls.js"));
  readonly pages: ListPages;
  readonly outgoing = new Outgoing();
  readonly requestState: RequestStateCodec;
  /** Who hears about changes (2025-era sessions and subscriptions, 2026-era listen streams). */
  readonly subscriptions: Subscriptions;
  /** Tool calls that run as tasks, and the `tasks/*` methods. */
  readonly tasks: Tasks;
  /** Settles once changes published on the bus (if any) are delivered here. */
  readonly listening: Promise<void> = Promise.resolve();

  constructor(
    readonly registry: Registry,
    options?: ServerOptions,
  ) {
    if (registry.format !== 2) throw new Error(`Unsupported registry format ${String(registry.format)}; rebuild with a matching mcpgen`);
    this.options = resolveServerOptions(options);
    this.requestState = new RequestStateCodec(this.options.requestStateSecret, this.options.requestStateTtlMs, this.options.clock);
    for (const entry of registry.tools) this.tools.set(entry.name, new ToolSlot(entry));
    this.primitives = new Lazy(() => import("./primitives.js").then(({ Primitives }) => new Primitives(registry)));
    this.kinds = kindsOf(registry);
    this.tasks = new Tasks(this.tools, this.options.tasks, resultServerInfo(registry.server, this.options.resultServerInfo), this.options.bus);
    const capabilities = capabilitiesOf(this.kinds);
    this.capabilities = { legacy: { ...capabilities, ...this.tasks.capabilities(false) }, modern: { ...capabilities, ...this.tasks.capabilities(true) } };
    this.subscriptions = new Subscriptions(this.kinds, this.options.maxSubscriptions);
    // 2026 tasks extension: a task's watchers hear each change, whichever instance made it.
    if (this.tasks.enabled) this.tasks.store.subscribe((record) => this.subscriptions.taskChanged(record.taskId, record.owner, () => taskMembers(record)));
    if (this.options.bus) this.listening = this.#listen(this.options.bus);
    this.results = new Results(registry, this.options, this.capabilities);

    const tail = this.results.listTail;
    const { pageSize } = this.options;
    const templates = registry.resourceTemplates ?? [];
    const listed = registry.tools.filter((tool) => !tool.hidden);
    this.pages = {
      "tools/list": new Pages({ key: "tools", cursorPrefix: "", entries: listed }, pageSize, tail),
      ...(this.kinds.resources && {
        "resources/list": new Pages({ key: "resources", cursorPrefix: "resource:", entries: registry.resources ?? [] }, pageSize, tail),
        "resources/templates/list": new Pages({ key: "resourceTemplates", cursorPrefix: "template:", entries: templates }, pageSize, tail),
      }),
      ...(this.kinds.prompts && {
        "prompts/list": new Pages({ key: "prompts", cursorPrefix: "prompt:", entries: registry.prompts ?? [] }, pageSize, tail),
      }),
    };
  }

  /**
   * Loads, in the background, the runtimes the registry's requests with a handler need (the tool calls', the
   * primitives'), so that the first such request does not wait for one. A failed load is tried again, and
   * reported, by the first request that needs it.
   */
  preload(): void {
    const { tools, resources, prompts, completions } = this.kinds;
    if (tools) this.toolCalls.get().catch(() => {});
    if (resources || prompts || completions) this.primitives.get().catch(() => {});
  }

  resourceUpdated(uri: string): void {
    if (this.options.bus) this.#publish({ uri });
    else this.subscriptions.resourceUpdated(uri);
  }

  listChanged(kind: ListKind): void {
    if (this.options.bus) this.#publish({ list: kind });
    else this.subscriptions.listChanged(kind);
  }

  /** A change goes out on the bus; every instance (this one too) delivers it to its own subscribers. */
  #publish(change: Change): void {
    this.options.bus?.publish(CHANGES, JSON.stringify(change)).catch((error: unknown) => console.error("[mcpgen] could not publish a change notification:", error));
  }

  /** Delivers the changes published on the bus by any instance; resolves once subscribed. */
  async #listen(bus: Bus): Promise<void> {
    await bus.subscribe(CHANGES, (message) => {
      const change = JSON.parse(message) as Change;
      if (typeof change.uri === "string") this.subscriptions.resourceUpdated(change.uri);
      else if (change.list === "tools" || change.list === "resources" || change.list === "prompts") this.subscriptions.listChanged(change.list);
    });
  }
}

/** The bus channel of change notifications, and what travels on it. */
const CHANGES = "changes";
interface Change {
  uri?: string;
  list?: ListKind;
}
