/**
 * `tools/list` pages, serialized once and reused. A cursor is the base64url of the name of the first tool of
 * the page it opens: stable across processes and instances built from the same registry, whatever their
 * page size, and an unknown name is an invalid cursor rather than a silently wrong page.
 */
import type { Era } from "./protocol.js";
import type { Registry, ToolEntry } from "./registry.js";

interface Page {
  legacy?: string;
  modern?: string;
}

export class ToolPages {
  private readonly listed: readonly ToolEntry[];
  private readonly position = new Map<string, number>();
  private readonly cache = new Map<number, Page>();

  /** `modernTail` is spliced into 2026-era results: `"ttlMs":…,"cacheScope":…,"_meta":{…}`. */
  constructor(
    private readonly registry: Registry,
    private readonly pageSize: number,
    private readonly modernTail: string,
  ) {
    this.listed = registry.tools.filter((tool) => !tool.hidden);
    this.listed.forEach((tool, index) => this.position.set(tool.name, index));
  }

  /** The serialized `tools/list` result for `cursor`, or `undefined` when the cursor is not one of ours. */
  result(cursor: string | undefined, era: Era): string | undefined {
    const start = cursor === undefined ? 0 : this.start(cursor);
    if (start === undefined) return undefined;
    let page = this.cache.get(start);
    if (!page) this.cache.set(start, (page = {}));
    if (era === "modern") return (page.modern ??= `{"resultType":"complete","tools":${this.body(start)},${this.modernTail}}`);
    return (page.legacy ??= `{"tools":${this.body(start)}}`);
  }

  /** `[…tools…]` plus `,"nextCursor":"…"` when more follow. */
  private body(start: number): string {
    const end = start + this.pageSize;
    const tools =
      start === 0 && end >= this.listed.length
        ? this.registry.toolsListJson
        : JSON.stringify(this.listed.slice(start, end).map((tool) => tool.wire));
    const next = this.listed[end];
    return next ? `${tools},"nextCursor":${JSON.stringify(encodeCursor(next.name))}` : tools;
  }

  private start(cursor: string): number | undefined {
    const name = Buffer.from(cursor, "base64url").toString("utf8");
    if (encodeCursor(name) !== cursor) return undefined;
    return this.position.get(name);
  }
}

export function encodeCursor(toolName: string): string {
  return Buffer.from(toolName, "utf8").toString("base64url");
}
