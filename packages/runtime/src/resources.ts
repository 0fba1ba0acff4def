/**
 * `resources/read`: a URI is routed to its static resource (inline contents, or a handler) or to the first
 * resource template that matches it; the template's variables are extracted from the URI (`uri-match.ts`),
 * validated and converted by the template's precompiled validator, and handed to its handler. The contents
 * come back as text (with the resource's `mimeType`), base64 blobs, or as the handler gave them.
 *
 * Matching lives in `uri-match.ts`, loaded on the first read that needs a template (a server without
 * templates never loads the regular-expression engine for it). It takes time linear in the URI; URIs longer
 * than `MAX_URI_LENGTH` are refused before they get here (methods.ts), and never matched.
 */
import { toBase64 } from "./content.js";
import type { ReadResourceResult, ResourceContents } from "./handler.js";
import type { StateBinding } from "./input.js";
import { Invocation, isClientError } from "./invocation.js";
import { Lazy } from "./lazy.js";
import { isObject, MAX_URI_LENGTH, normalizeEscapes } from "./protocol.js";
import type { AnyHandlerModule, Registry, ResourceEntry, ResourceTemplateEntry, Validate } from "./registry.js";
import type { RequestContext } from "./context.js";
import type { TemplateMatcher } from "./uri-match.js";
import { describeValidationErrors } from "./validation.js";

interface StaticSlot {
  readonly entry: ResourceEntry;
  /** Inline contents, serialized once: `"contents":[…]`. */
  readonly inline: string | undefined;
  readonly module: Lazy<AnyHandlerModule> | undefined;
}

export interface TemplateSlot {
  readonly entry: ResourceTemplateEntry;
  readonly validators: Lazy<{ variables: Validate }>;
  readonly module: Lazy<AnyHandlerModule>;
}

export type Route =
  | { readonly kind: "static"; readonly slot: StaticSlot }
  | { readonly kind: "template"; readonly slot: TemplateSlot; readonly variables: Record<string, unknown> };

/** The registry's resources and templates, by URI and by template string. */
export class ResourceRouter {
  private readonly statics = new Map<string, StaticSlot>();
  private readonly templates: TemplateSlot[];
  private readonly byTemplate = new Map<string, TemplateSlot>();
  /** The templates' matchers, most specific (most literal characters) first; built on first use. */
  private readonly matchers: Lazy<{ slot: TemplateSlot; matcher: TemplateMatcher }[]>;

  constructor(registry: Registry) {
    for (const entry of registry.resources ?? []) {
      const inline = entry.contents === undefined ? undefined : `"contents":[${JSON.stringify(entry.contents)}]`;
      const load = entry.handler;
      const slot: StaticSlot = { entry, inline, module: load && new Lazy(() => load().then((module) => checked(module, `resource "${entry.name}"`))) };
      this.statics.set(normalizeEscapes(entry.wire.uri), slot);
    }
    this.templates = (registry.resourceTemplates ?? []).map((entry) => ({
      entry,
      validators: new Lazy(() => entry.validators()),
      module: new Lazy(() => entry.handler().then((module) => checked(module, `resource template "${entry.name}"`))),
    }));
    for (const slot of this.templates) this.byTemplate.set(slot.entry.wire.uriTemplate, slot);
    this.matchers = new Lazy(async () => {
      const { TemplateMatcher } = await import("./uri-match.js");
      const built = this.templates.map((slot, index) => ({ slot, index, matcher: new TemplateMatcher(slot.entry.wire.uriTemplate) }));
      return built.sort((a, b) => b.matcher.specificity - a.matcher.specificity || a.index - b.index);
    });
  }

  /** Where `uri` leads, or `undefined` when no resource or template has it. */
  route(uri: string): Route | undefined | Promise<Route | undefined> {
    const found = this.statics.get(normalizeEscapes(uri));
    if (found) return { kind: "static", slot: found };
    if (this.templates.length === 0 || uri.length > MAX_URI_LENGTH) return undefined;
    return this.matchers.get().then((matchers) => {
      for (const { slot, matcher } of matchers) {
        const variables = matcher.match(uri);
        if (variables) return { kind: "template", slot, variables };
      }
      return undefined;
    });
  }

  /** The template whose `uriTemplate` is exactly `template` (completion references name templates so). */
  template(template: string): TemplateSlot | undefined {
    return this.byTemplate.get(template);
  }
}

function checked(module: AnyHandlerModule, what: string): AnyHandlerModule {
  if (typeof module.default !== "function") throw new TypeError(`the handler module of ${what} has no default-exported function`);
  return module;
}

/** One `resources/read`; it is also the handler's `ctx` (with `uri`). */
export class ResourceRead extends Invocation {
  private route: Route | undefined;
  private handler: AnyHandlerModule["default"] | undefined;

  constructor(
    ctx: RequestContext,
    private readonly router: ResourceRouter,
    readonly uri: string,
  ) {
    super(ctx);
  }

  protected prepare(): string | undefined | Promise<string | undefined> {
    const route = this.router.route(this.uri);
    return route instanceof Promise ? route.then((found) => this.routed(found)) : this.routed(route);
  }

  private routed(route: Route | undefined): string | undefined | Promise<string | undefined> {
    this.route = route;
    if (!route) return this.notFound(`Resource not found: ${this.uri}`);
    if (route.kind === "static") {
      const { inline, module } = route.slot;
      if (inline !== undefined) return this.result(inline, this.conn.services.results.cacheHints);
      if (!module) throw new TypeError(`resource "${route.slot.entry.name}" has neither inline contents nor a handler`);
      return module.get().then((loaded) => void (this.handler = loaded.default));
    }
    const { slot, variables } = route;
    return Promise.all([slot.validators.get(), slot.module.get()]).then(([validators, loaded]) => {
      this.handler = loaded.default;
      if (validators.variables(variables)) return undefined;
      return this.error(
        "invalidParams",
        `Invalid params: ${this.uri} does not fit resource template "${slot.entry.name}": ${describeValidationErrors(validators.variables.errors)}`,
        { uri: this.uri },
      );
    });
  }

  protected invoke(): unknown {
    const route = this.route as Route;
    const handler = this.handler as AnyHandlerModule["default"];
    return route.kind === "static" ? handler(this) : handler(route.variables, this);
  }

  protected succeed(outcome: unknown): string {
    const route = this.route as Route;
    const mimeType = route.slot.entry.wire.mimeType;
    const result = readResult(outcome, this.uri, mimeType);
    const members = `"contents":${JSON.stringify(result.contents)}`;
    if (!this.modern) return this.result(result._meta === undefined ? members : `${members},"_meta":${JSON.stringify(result._meta)}`);
    const ttlMs = Number.isSafeInteger(result.ttlMs) && (result.ttlMs as number) >= 0 ? (result.ttlMs as number) : 0;
    const cacheScope = result.cacheScope === "public" ? "public" : "private";
    const hints = `"ttlMs":${ttlMs},"cacheScope":"${cacheScope}"`;
    if (result._meta === undefined) return this.result(members, hints);
    return this.conn.services.results.modernResponse(this.requestId, { contents: result.contents, ttlMs, cacheScope, _meta: result._meta });
  }

  /** A `ToolError` (or a client that could not answer) means the resource cannot be read: not found, with its message. */
  protected fail(error: unknown): string {
    if (isClientError(error)) return this.notFound(error.message);
    const name = this.route?.slot.entry.name ?? this.uri;
    this.report(error, "resource", name);
    const kind = error instanceof Error ? error.name : typeof error;
    return this.error("internalError", `Reading ${this.uri} failed with an internal error (${kind}); the details were logged on the server.`);
  }

  protected binding(): StateBinding {
    return { target: `resource:${this.uri}`, args: {}, subject: this.auth?.subject };
  }

  /** The negotiated version's "resource not found": -32002 (2025 era) or -32602 (2026-07-28, SEP-2164), with the URI. */
  private notFound(message: string): string {
    return this.error(this.modern ? "invalidParams" : "resourceNotFound", message, { uri: this.uri });
  }
}

/** The handler contract: text, bytes, contents, or a full result. */
function readResult(value: unknown, uri: string, mimeType: string | undefined): ReadResourceResult {
  if (typeof value === "string") return { contents: [{ uri, ...(mimeType !== undefined && { mimeType }), text: value }] };
  if (value instanceof Uint8Array) return { contents: [{ uri, ...(mimeType !== undefined && { mimeType }), blob: toBase64(value) }] };
  if (Array.isArray(value) && value.every(isContents)) return { contents: value };
  if (isContents(value)) return { contents: [value] };
  if (isObject(value) && Array.isArray(value.contents) && value.contents.every(isContents)) return value as unknown as ReadResourceResult;
  throw new TypeError("the resource handler returned neither text, bytes (Uint8Array), resource contents nor a { contents } result");
}

function isContents(value: unknown): value is ResourceContents {
  return isObject(value) && typeof value.uri === "string" && (typeof value.text === "string" || typeof value.blob === "string");
}
