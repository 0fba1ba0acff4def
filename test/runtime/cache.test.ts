/** Lookups that remember the last key: they answer what the map answers, whatever the order of keys. */
import { describe, expect, it } from "vitest";
import { BoundedCache, LastLookup } from "../../packages/runtime/src/cache.js";
import { eraOf } from "../../packages/runtime/src/era.js";
import { SessionTable } from "../../packages/runtime/src/http/sessions.js";
import type { Connection } from "../../packages/runtime/src/connection.js";

/** A string equal to `text` but not the same string (as a header value read from the wire is). */
const fresh = (text: string): string => Buffer.from(text, "latin1").toString("latin1");

describe("LastLookup", () => {
  it("answers as the map it looks in does, for repeated, alternating and absent keys, undefined among them", () => {
    const map = new Map<string | undefined, number>([
      ["a", 1],
      ["b", 2],
      [undefined, 3],
    ]);
    const lookup = new LastLookup((key: string | undefined) => map.get(key));
    const keys = ["a", "a", fresh("a"), "b", "a", "zz", "zz", undefined, undefined, "b", "zz", "a"];
    expect(keys.map((k) => lookup.get(k))).toEqual(keys.map((k) => map.get(k)));
  });

  it("answers a fresh copy of the last key from memory, without looking it up again", () => {
    let asked = 0;
    const map = new Map([["tools/call", "call"]]);
    const lookup = new LastLookup((key: string) => (asked++, map.get(key)));
    expect([lookup.get(fresh("tools/call")), lookup.get(fresh("tools/call")), lookup.get("tools/call")]).toEqual(["call", "call", "call"]);
    expect(asked).toBe(1);
    expect(lookup.get("tools/list")).toBeUndefined();
    expect(asked).toBe(2);
  });
});

describe("BoundedCache", () => {
  it("computes each key once while it is kept, remembers the last, and refills at capacity", () => {
    const computed: (string | undefined)[] = [];
    const cache = new BoundedCache<string | undefined, string>(2, (key) => (computed.push(key), `v:${String(key)}`));
    const keys = ["x", fresh("x"), undefined, "x", undefined, "y", "y", "x"];
    expect(keys.map((k) => cache.get(k))).toEqual(keys.map((k) => `v:${String(k)}`));
    // x, undefined: kept; y: the table was full, so it was dropped and y kept; x: computed again.
    expect(computed).toEqual(["x", undefined, "y", "x"]);
    expect(cache.size).toBe(2);
  });
});

describe("eraOf", () => {
  it("gives each version's era, alternating and repeated, and nothing for an unknown one", () => {
    const versions = ["2025-11-25", fresh("2025-11-25"), "2026-07-28", "2026-07-28", "2025-03-26", "1999-01-01", undefined, 20251125, "2026-07-28"];
    expect(versions.map(eraOf)).toEqual(["legacy", "legacy", "modern", "modern", "legacy", undefined, undefined, undefined, "modern"]);
  });
});

describe("SessionTable.find", () => {
  const connection = {} as Connection;

  it("finds a session by an equal id, for its own subject only, and never once it is removed", () => {
    const table = new SessionTable(60_000);
    const a = table.create(connection, "alice", 0, "id-a");
    const b = table.create(connection, undefined, 0, "id-b");
    expect(table.find(fresh("id-a"), "alice")).toBe(a);
    expect(table.find("id-a", "alice")).toBe(a);
    expect(table.find("id-a", "mallory")).toBeUndefined(); // right after it was found for alice
    expect(table.find("id-a", undefined)).toBeUndefined();
    expect(table.find("id-b", undefined)).toBe(b);
    expect(table.find("id-a", "alice")).toBe(a);
    expect(table.remove(a)).toBe(true);
    expect(table.find("id-a", "alice")).toBeUndefined(); // it was the one found last
    const again = table.create(connection, "alice", 0, "id-a"); // restored from a shared store
    expect(table.find("id-a", "alice")).toBe(again);
    expect(table.find("id-c", undefined)).toBeUndefined();
  });
});
