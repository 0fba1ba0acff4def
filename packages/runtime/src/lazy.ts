/**
 * A value loaded on first use (a handler module, a validator module): one load in flight at a time, the
 * value kept once loaded, and a failed load retried by the next use.
 */
export class Lazy<T> {
  /** The value, once loaded (read it to skip a microtask on the hot path). */
  value: T | undefined;
  private pending: Promise<T> | undefined;

  constructor(private readonly loader: () => Promise<T>) {}

  get(): Promise<T> {
    if (this.value !== undefined) return Promise.resolve(this.value);
    this.pending ??= this.loader().then(
      (value) => (this.value = value),
      (error: unknown) => {
        this.pending = undefined;
        throw error;
      },
    );
    return this.pending;
  }
}
