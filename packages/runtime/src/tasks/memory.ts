/**
 * The default `TaskStore`: a map in this process. Expired tasks (older than their `ttlMs` by the injected
 * clock) are invisible at once and deleted on the next write.
 */
import { isTerminal, type TaskPage, type TaskPatch, type TaskRecord, type TaskStore } from "./store.js";

export interface MemoryTaskStoreOptions {
  /** Milliseconds since the epoch (default `Date.now`); tests pass their own to expire tasks. */
  now?: () => number;
}

export class MemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, TaskRecord>();
  readonly #listeners = new Set<(record: TaskRecord) => void>();
  readonly #now: () => number;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** Live tasks (for tests and stats). */
  get size(): number {
    this.#sweep();
    return this.#tasks.size;
  }

  create(record: TaskRecord): Promise<void> {
    this.#sweep();
    this.#tasks.set(record.taskId, structuredClone(record));
    this.#emit(record);
    return Promise.resolve();
  }

  get(taskId: string, owner: string): Promise<TaskRecord | undefined> {
    const record = this.#live(taskId);
    return Promise.resolve(record && record.owner === owner ? structuredClone(record) : undefined);
  }

  update(taskId: string, patch: TaskPatch): Promise<TaskRecord | undefined> {
    const record = this.#live(taskId);
    if (!record || isTerminal(record.status)) return Promise.resolve(undefined);
    for (const [key, value] of Object.entries(patch) as [keyof TaskPatch, unknown][]) {
      if (value === undefined) delete record[key];
      else (record as unknown as Record<string, unknown>)[key] = structuredClone(value);
    }
    record.lastUpdatedAt = Math.max(this.#now(), record.lastUpdatedAt);
    this.#emit(record);
    return Promise.resolve(structuredClone(record));
  }

  list(owner: string, cursor: string | undefined, limit: number): Promise<TaskPage | undefined> {
    const mine = [...this.#tasks.values()].filter((record) => record.owner === owner && !this.#expired(record));
    let start = 0;
    if (cursor !== undefined) {
      start = mine.findIndex((record) => record.taskId === cursor) + 1;
      if (start === 0) return Promise.resolve(undefined);
    }
    const tasks = mine.slice(start, start + limit);
    const more = start + limit < mine.length;
    return Promise.resolve({ tasks: structuredClone(tasks), ...(more && { nextCursor: (tasks.at(-1) as TaskRecord).taskId }) });
  }

  subscribe(listener: (record: TaskRecord) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #live(taskId: string): TaskRecord | undefined {
    const record = this.#tasks.get(taskId);
    if (record && this.#expired(record)) {
      this.#tasks.delete(taskId);
      return undefined;
    }
    return record;
  }

  #expired(record: TaskRecord): boolean {
    return record.ttlMs !== null && this.#now() >= record.createdAt + record.ttlMs;
  }

  #sweep(): void {
    for (const [id, record] of this.#tasks) if (this.#expired(record)) this.#tasks.delete(id);
  }

  #emit(record: TaskRecord): void {
    const copy = structuredClone(record);
    for (const listener of this.#listeners) {
      try {
        listener(copy);
      } catch {
        // a failing listener must not undo the write
      }
    }
  }
}
