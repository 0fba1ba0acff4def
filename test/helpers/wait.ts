/**
 * Waiting in tests, without letting time decide an outcome: `until` polls a condition and fails when it does
 * not hold within its bound; `listeningUrl` reads the address a server process announces on stderr.
 */
import type { ChildProcess } from "node:child_process";

export interface UntilOptions {
  /** Fail after this long (default 3000 ms). */
  timeoutMs?: number;
  /** Named in the error on timeout. */
  what?: string;
}

/** Resolves once `condition()` holds (checked every few ms); rejects after `timeoutMs`. */
export async function until(condition: () => boolean, { timeoutMs = 3000, what = "the condition" }: UntilOptions = {}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Resolves with `promise`, or rejects if it has not settled within `timeoutMs`. */
export async function within<T>(promise: Promise<T>, { timeoutMs = 3000, what = "the promise" }: UntilOptions = {}): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Lets the event loop turn once (I/O included), e.g. so two writes reach a reader as two chunks. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The `listening on <url>` address a server process writes to stderr; fails after `timeoutMs`. */
export function listeningUrl(child: ChildProcess, timeoutMs = 10_000): Promise<string> {
  let stderr = "";
  return new Promise<string>((resolve, reject) => {
    const stop = (): void => {
      clearTimeout(timer);
      child.stderr?.off("data", onData);
      child.off("exit", onExit);
    };
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no listening line within ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    const onData = (chunk: Buffer | string): void => {
      stderr += String(chunk);
      const match = /listening on (http:\/\/\S+)/.exec(stderr);
      if (match) {
        stop();
        resolve(match[1] as string);
      }
    };
    const onExit = (): void => {
      stop();
      reject(new Error(`server exited before listening: ${stderr}`));
    };
    child.stderr?.on("data", onData);
    child.on("exit", onExit);
  });
}

/** The `_meta` envelope of a 2026-07-28 request. */
export const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "mcpgen-test", version: "0.0.1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A 2026-07-28 POST of one request: its headers (`Mcp-Name` when the method names something) and body. */
export function modernPost(method: string, params: Record<string, unknown>, name: string | undefined, meta: Record<string, unknown> = ENVELOPE): RequestInit {
  return {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(name !== undefined && { "mcp-name": name }),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: meta } }),
  };
}
