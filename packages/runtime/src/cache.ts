/**
 * A small bounded memo: values computed once per key, at most `capacity` kept. At capacity the whole table
 * is dropped and refilled; the keys it serves (header values a few clients send, tool names) are few, so
 * that is rare and cheaper than tracking recency on every hit.
 */
export class BoundedCache<K, V> {
  readonly #entries = new Map<K, V>();

  constructor(
    private readonly capacity: number,
    private readonly compute: (key: K) => V,
  ) {}

  get(key: K): V {
    let value = this.#entries.get(key);
    if (value === undefined && !this.#entries.has(key)) {
      value = this.compute(key);
      if (this.#entries.size >= this.capacity) this.#entries.clear();
      this.#entries.set(key, value);
    }
    return value as V;
  }

  get size(): number {
    return this.#entries.size;
  }
}
