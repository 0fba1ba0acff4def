/**
 * Lookups that remember the last key asked. A client sends the same method, tool name and header values
 * request after request; comparing a key with the last one costs less than hashing a fresh string (a header
 * value, a long name) into a map and probing its table, which one request at a time finds out of the CPU's
 * caches (BENCHMARKS.md, HTTP: ~0.4 µs per request in process with header values read from the wire).
 */

/** Nothing asked yet (a key can be `undefined`: a header that is absent). */
const NONE: unique symbol = Symbol("none");

/** `lookup(key)`, the last key and its value remembered: `lookup` must give a key the same value every time. */
export class LastLookup<K, V> {
  #key: K | typeof NONE = NONE;
  #value: V | undefined;

  constructor(private readonly lookup: (key: K) => V) {}

  get(key: K): V {
    if (key === this.#key) return this.#value as V;
    const value = this.lookup(key);
    this.#key = key;
    this.#value = value;
    return value;
  }
}

/**
 * A small bounded memo: values computed once per key, at most `capacity` kept. At capacity the whole table
 * is dropped and refilled; the keys it serves (header values a few clients send, tool names) are few, so
 * that is rare and cheaper than tracking recency on every hit. The last key is remembered besides.
 */
export class BoundedCache<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #last = new LastLookup((key: K) => this.#lookup(key));

  constructor(
    private readonly capacity: number,
    private readonly compute: (key: K) => V,
  ) {}

  get(key: K): V {
    return this.#last.get(key);
  }

  get size(): number {
    return this.#entries.size;
  }

  #lookup(key: K): V {
    let value = this.#entries.get(key);
    if (value === undefined && !this.#entries.has(key)) {
      value = this.compute(key);
      if (this.#entries.size >= this.capacity) this.#entries.clear();
      this.#entries.set(key, value);
    }
    return value as V;
  }
}
