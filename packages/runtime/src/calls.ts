/**
 * A connection's calls in flight, by request id: a hash table chained through the calls themselves, so
 * adding, finding and removing a call allocate nothing. A `Map` that fills and empties at every burst of
 * pipelined requests rehashes its table as it grows and again as it shrinks: over stdio that was 4–7 % of the
 * server's CPU per call (BENCHMARKS.md). Here the bucket array only grows, and is dropped once the table is
 * empty after a burst of more than `KEEP_BUCKETS` calls.
 *
 * Ids are hashed with a seed of each table's own, so a client cannot choose ids that all fall into one chain.
 * A table has no buckets until it holds two calls at once: its one call sits in a field of its own. A
 * 2026-era HTTP request has a connection, and so a table, of its own, and a stdio client that waits for each
 * answer never needs more.
 */
import type { RequestId } from "./protocol.js";

/** What the table keeps: a call knows its id and carries the table's link to the next call of its bucket. */
export interface TableMember {
  readonly requestId: RequestId;
  nextInTable: TableMember | undefined;
}

const FIRST_BUCKETS = 8;
/** A bucket array up to this size is kept while the table is empty; a larger one is dropped. */
const KEEP_BUCKETS = 256;

export class CallTable<T extends TableMember> {
  /** The call of a table without buckets. */
  #only: T | undefined = undefined;
  #buckets: (T | undefined)[] | undefined = undefined;
  /** 32 − log2(buckets): a hash shifted right by this is a bucket. */
  #shift = 32;
  #size = 0;
  /** Chosen with each first bucket array. */
  #seed = 0;

  get size(): number {
    return this.#size;
  }

  get(id: RequestId): T | undefined {
    const buckets = this.#buckets;
    if (buckets === undefined) {
      const only = this.#only;
      return only !== undefined && only.requestId === id ? only : undefined;
    }
    let call = buckets[hash(id, this.#seed) >>> this.#shift];
    while (call !== undefined && call.requestId !== id) call = call.nextInTable as T | undefined;
    return call;
  }

  has(id: RequestId): boolean {
    return this.get(id) !== undefined;
  }

  /** Adds `call`, whose id must not be in the table. */
  add(call: T): void {
    let buckets = this.#buckets;
    if (buckets === undefined) {
      if (this.#only === undefined) {
        this.#only = call;
        this.#size = 1;
        return;
      }
      buckets = this.#resize(FIRST_BUCKETS);
    } else if (this.#size >= buckets.length) buckets = this.#resize(buckets.length * 2);
    const index = hash(call.requestId, this.#seed) >>> this.#shift;
    call.nextInTable = buckets[index];
    buckets[index] = call;
    this.#size++;
  }

  /** Removes `call` itself (not another call with its id); whether it was in the table. */
  delete(call: T): boolean {
    const buckets = this.#buckets;
    if (buckets === undefined) {
      if (this.#only !== call) return false;
      this.#only = undefined;
      this.#size = 0;
      return true;
    }
    const index = hash(call.requestId, this.#seed) >>> this.#shift;
    let previous: T | undefined;
    let member = buckets[index];
    while (member !== undefined && member !== call) {
      previous = member;
      member = member.nextInTable as T | undefined;
    }
    if (member === undefined) return false;
    if (previous === undefined) buckets[index] = call.nextInTable as T | undefined;
    else previous.nextInTable = call.nextInTable;
    call.nextInTable = undefined;
    if (--this.#size === 0 && buckets.length > KEEP_BUCKETS) this.#buckets = undefined;
    return true;
  }

  /** Every call, in no particular order. */
  values(): T[] {
    if (this.#buckets === undefined) return this.#only === undefined ? [] : [this.#only];
    const calls: T[] = [];
    for (const first of this.#buckets) {
      for (let call = first; call !== undefined; call = call.nextInTable as T | undefined) calls.push(call);
    }
    return calls;
  }

  /**
   * A new bucket array of `length` (a power of two), the calls moved over (the one call of a table without
   * buckets too). The old one is emptied: it may sit in the old generation, where it would keep the calls it
   * lists reachable until a full GC.
   */
  #resize(length: number): (T | undefined)[] {
    let old = this.#buckets;
    if (old === undefined) {
      old = [this.#only];
      this.#only = undefined;
      this.#seed = (Math.random() * 0x1_0000_0000) | 0;
    }
    const buckets = new Array<T | undefined>(length).fill(undefined);
    const shift = 32 - Math.log2(length);
    for (let i = 0; i < old.length; i++) {
      for (let call = old[i]; call !== undefined; ) {
        const next = call.nextInTable as T | undefined;
        const index = hash(call.requestId, this.#seed) >>> shift;
        call.nextInTable = buckets[index];
        buckets[index] = call;
        call = next;
      }
      old[i] = undefined;
    }
    this.#buckets = buckets;
    this.#shift = shift;
    return buckets;
  }
}

/**
 * A 32-bit hash of an id, mixed with `seed` (so that a client cannot compute ids that collide), whose high
 * bits pick the bucket (multiplicative hashing: they depend on every bit of the id). Safe integers use both
 * halves of their 53 bits; strings every code unit; other numbers and bigints (beyond 2^53) their digits.
 */
export function hash(id: RequestId, seed: number): number {
  let h: number;
  if (typeof id === "number" && Number.isSafeInteger(id)) {
    const low = id | 0;
    h = Math.imul(low ^ seed, 0x85ebca6b) ^ Math.imul(((id - low) / 0x1_0000_0000) | 0, 0xc2b2ae35);
  } else {
    const text = typeof id === "string" ? id : `n${id}`;
    h = seed ^ 0x811c9dc5;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  }
  // Signed: any int32 is a small integer to V8, where an unsigned result above 2^31 became a heap number per
  // call. The callers shift it right with `>>>`, which reads the same 32 bits either way.
  return Math.imul(h, 0x9e3779b1);
}
