/** A connection's table of calls in flight: found by id, removed by identity, growing and letting go. */
import { describe, expect, it } from "vitest";
import { CallTable, hash, type TableMember } from "../../packages/runtime/src/calls.js";
import type { RequestId } from "../../packages/runtime/src/protocol.js";

interface Call extends TableMember {
  readonly name: string;
}
const call = (requestId: RequestId, name = String(requestId)): Call => ({ requestId, name, nextInTable: undefined });
const names = (table: CallTable<Call>): string[] => table.values().map((c) => c.name).sort();

describe("CallTable", () => {
  it("finds calls by id, telling 1, '1' and 1n apart", () => {
    const table = new CallTable<Call>();
    const [number, text, big] = [call(1, "number"), call("1", "text"), call(1n, "bigint")];
    for (const c of [number, text, big]) table.add(c);
    expect(table.size).toBe(3);
    expect(table.get(1)).toBe(number);
    expect(table.get("1")).toBe(text);
    expect(table.get(1n)).toBe(big);
    expect(table.has(2)).toBe(false);
    expect(table.get(-0)).toBe(table.get(0)); // both absent; -0 and 0 are one JSON id
  });

  it("removes a call itself, not another call with its id, and only once", () => {
    const table = new CallTable<Call>();
    const first = call(7, "first");
    table.add(first);
    expect(table.delete(call(7, "impostor"))).toBe(false);
    expect(table.get(7)).toBe(first);
    expect(table.delete(first)).toBe(true);
    expect(table.delete(first)).toBe(false);
    expect(table.size).toBe(0);
    expect(first.nextInTable).toBeUndefined();
    const again = call(7, "again"); // the id may be used again at once
    table.add(again);
    expect(table.get(7)).toBe(again);
  });

  it("holds one call without buckets, and moves it into them when a second comes", () => {
    const table = new CallTable<Call>();
    const only = call(1, "only");
    table.add(only);
    expect(table.get(1)).toBe(only);
    expect(table.get("1")).toBeUndefined();
    expect(table.get(1n)).toBeUndefined();
    expect(table.values()).toEqual([only]);
    const second = call("1", "second");
    table.add(second);
    expect(table.size).toBe(2);
    expect(table.get(1)).toBe(only);
    expect(table.get("1")).toBe(second);
    expect(table.delete(only)).toBe(true);
    expect(names(table)).toEqual(["second"]);
    expect(table.delete(second)).toBe(true);
    expect(table.values()).toEqual([]);
    expect(table.get("1")).toBeUndefined();
  });

  it("keeps every call through growth, whatever kind of id, and removes any of them", () => {
    const table = new CallTable<Call>();
    const ids: RequestId[] = [];
    for (let i = 0; i < 3000; i++) ids.push(i % 3 === 0 ? i : i % 3 === 1 ? `req-${i}` : BigInt(i) * 2n ** 60n);
    ids.push(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 32, -1, "", "é");
    const calls = ids.map((id) => call(id));
    for (const c of calls) table.add(c);
    expect(table.size).toBe(calls.length);
    for (const c of calls) expect(table.get(c.requestId)).toBe(c);
    for (const c of calls.filter((_, i) => i % 2 === 0)) expect(table.delete(c)).toBe(true);
    const rest = calls.filter((_, i) => i % 2 === 1);
    expect(names(table)).toEqual(rest.map((c) => c.name).sort());
    for (const c of rest) expect(table.get(c.requestId)).toBe(c);
    for (const c of rest) table.delete(c);
    expect(table.size).toBe(0);
    expect(table.values()).toEqual([]);
    // emptied after a burst: the table starts small again and works as before
    table.add(call(1));
    expect(names(table)).toEqual(["1"]);
  });

  it("spreads ids a client could pick to collide (multiples of 2^32, of a power of two) over the buckets", () => {
    const seed = 0x5eed;
    for (const step of [2 ** 32, 2 ** 20, 1024, 64]) {
      const buckets = new Set<number>();
      for (let i = 1; i <= 64; i++) buckets.add(hash(step * i, seed) >>> 26);
      expect(buckets.size, `ids ${step} apart`).toBeGreaterThan(24);
    }
    const strings = new Set<number>();
    for (let i = 0; i < 64; i++) strings.add(hash(`id-${i}`, seed) >>> 26);
    expect(strings.size).toBeGreaterThan(24);
    // the seed changes where an id falls
    // ids whose halves cancel without the seed: 2^32·k + (c ^ k·K) (K the high half's multiplier)
    const crafted = new Set<number>();
    for (let k = 1; k <= 64; k++) crafted.add(hash(2 ** 32 * k + ((0x1234 ^ Math.imul(k, 0xc2b2ae35)) >>> 0), seed) >>> 26);
    expect(crafted.size).toBeGreaterThan(24);
    // the seed changes where an id falls
    expect(new Set(Array.from({ length: 8 }, (_, s) => hash(42, s * 0x9e3779b1) >>> 22)).size).toBeGreaterThan(4);
  });
});
