/**
 * Where tasks live. The runtime keeps every task as a plain JSON record behind `TaskStore`, so that a store
 * shared by several server processes (Redis) can stand in for the in-memory default: every method is
 * async, records are JSON-serializable, time comes from an injected clock, and changes are announced
 * through `subscribe` (a shared store relays them between processes).
 */

/** The states of a task; `completed`, `failed` and `cancelled` are terminal and never change again. */
export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

export const TERMINAL_STATUSES: readonly TaskStatus[] = ["completed", "failed", "cancelled"];

export function isTerminal(status: TaskStatus): boolean {
  return status === "completed" || status === "failed" || status === "cancelled";
}

/** A JSON-RPC error as a failed task reports it. */
export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

/** One task, as stored. Times are milliseconds since the epoch. */
export interface TaskRecord {
  taskId: string;
  /** Who may see it: the authenticated subject, else the 2025-era session (see `taskOwner`). */
  owner: string;
  /** The tool whose call the task runs. */
  tool: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: number;
  lastUpdatedAt: number;
  /** How long after `createdAt` the task may be deleted; `null`: kept until the server restarts. */
  ttlMs: number | null;
  pollIntervalMs: number;
  /** `completed`: the tool's `CallToolResult`. */
  result?: Record<string, unknown>;
  /** `failed`: the protocol error the call ended with. */
  error?: TaskError;
  /** `input_required` (2026-07-28 extension): the requests the client still has to answer, by key. */
  inputRequests?: Record<string, unknown>;
}

/** The fields a status change may set; `inputRequests: undefined` removes them. */
export type TaskPatch = Partial<Pick<TaskRecord, "status" | "statusMessage" | "result" | "error">> & { inputRequests?: Record<string, unknown> | undefined };

export interface TaskPage {
  tasks: TaskRecord[];
  nextCursor?: string;
}

export interface TaskStore {
  /** Stores a new task; resolves once a `get` of it (from any process sharing the store) finds it. */
  create(record: TaskRecord): Promise<void>;
  /** The task, if it exists, has not expired and belongs to `owner`. */
  get(taskId: string, owner: string): Promise<TaskRecord | undefined>;
  /**
   * Applies `patch` (and bumps `lastUpdatedAt`) unless the task is terminal already, which it stays: returns
   * the updated record, or `undefined` when nothing changed (unknown, expired or terminal task). An
   * `inputRequests` of `undefined` in the patch removes them.
   */
  update(taskId: string, patch: TaskPatch): Promise<TaskRecord | undefined>;
  /** `owner`'s live tasks, oldest first, at most `limit` from `cursor` (what an earlier page returned). */
  list(owner: string, cursor: string | undefined, limit: number): Promise<TaskPage | undefined>;
  /** Calls `listener` with every record `create` or `update` stored; returns the unsubscribe function. */
  subscribe(listener: (record: TaskRecord) => void): () => void;
}
