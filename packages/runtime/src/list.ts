/**
 * List pages (`tools/list`, `resources/list`, `resources/templates/list`, `prompts/list`), serialized on first
 * use and reused. Without a page size every list is one page, as the official SDKs send it: some clients
 * read only the first page of `tools/list`. A cursor is the base64url of the name of the first entry of the page it opens (prefixed with the
 * kind, except for tools): stable across processes and instances built from the same registry, whatever their
 * page size, and an unknown name — or a cursor of another list — is an invalid cursor rather than a silently
 * wrong page.
 */
import { toBase64 } from "./content.js";
import type { Era } from "./era.js";

/** One listed entry: its registry name (unique within its list) and its wire metadata (or its JSON text). */
export interface Listed {
  readonly name: string;
  readonly wire: unknown;
}

/** What a list is called on the wire and its listed entries. */
export interface ListSource {
  /** The result member: `tools`, `resources`, `resourceTemplates` or `prompts`. */
  readonly key: string;
  /** Prefixed to the names in cursors, so a cursor of one list is not valid for another. */
  readonly cursorPrefix: string;
  readonly entries: readonly Listed[];
}

interface Page {
  /** The serialized entries (and next cursor), shared by both eras. */
  body?: string;
  legacy?: string;
  modern?: string;
}

export class Pages {
  private readonly position = new Map<string, number>();
  private readonly cache = new Map<number, Page>();

  /**
   * `pageSize` may be `Infinity` (one page). `modernTail` is spliced into 2026-era results:
   * `"ttlMs":…,"cacheScope":…,"_meta":{…}`.
   */
  constructor(
    private readonly source: ListSource,
    private readonly pageSize: number,
    private readonly modernTail: string,
  ) {
    source.entries.forEach((entry, index) => this.position.set(entry.name, index));
  }

  /** The serialized list result for `cursor`, or `undefined` when the cursor is not one of ours. */
  result(cursor: string | undefined, era: Era): string | undefined {
    const start = cursor === undefined ? 0 : this.start(cursor);
    if (start === undefined) return undefined;
    let page = this.cache.get(start);
    if (!page) this.cache.set(start, (page = {}));
    page.body ??= this.body(start);
    if (era === "modern") return (page.modern ??= `{"resultType":"complete","${this.source.key}":${page.body},${this.modernTail}}`);
    return (page.legacy ??= `{"${this.source.key}":${page.body}}`);
  }

  /** `[…entries…]` plus `,"nextCursor":"…"` when more follow. */
  private body(start: number): string {
    const { entries } = this.source;
    const end = start + this.pageSize;
    const items = `[${entries
      .slice(start, end)
      .map(({ wire }) => (typeof wire === "string" ? wire : JSON.stringify(wire)))
      .join(",")}]`;
    const next = entries[end];
    return next ? `${items},"nextCursor":${JSON.stringify(encodeCursor(this.source.cursorPrefix + next.name))}` : items;
  }

  private start(cursor: string): number | undefined {
    const text = decodeCursor(cursor);
    if (text === undefined || encodeCursor(text) !== cursor || !text.startsWith(this.source.cursorPrefix)) return undefined;
    return this.position.get(text.slice(this.source.cursorPrefix.length));
  }
}

/** base64url of the UTF-8 text, with web-standard APIs only (the fetch handler runs beyond Node too). */
export function encodeCursor(text: string): string {
  return toBase64(new TextEncoder().encode(text)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function decodeCursor(cursor: string): string | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(cursor)) return undefined;
  try {
    const binary = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return undefined; // not base64, or not UTF-8: not one of our cursors
  }
}
