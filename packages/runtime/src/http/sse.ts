/**
 * One Server-Sent Events response stream, independent of the adapter that carries it. The transport writes
 * events; an adapter attaches a target (a `ReadableStream` controller, a `node:http` response) and reports
 * backpressure and a client that went away. Writes made before the target is attached are buffered.
 */

/** Where an adapter puts the bytes of a stream. */
export interface SseTarget {
  /** Writes a chunk; `false` means the target is congested until the adapter calls `drained()`. */
  write(chunk: string): boolean;
  /** Ends the response, after `chunk` when given (one write for a response that is complete at once). */
  end(chunk?: string): void;
}

export class SseStream {
  private target: SseTarget | undefined;
  /** What was written before a target was attached. */
  private pending = "";
  private congested: Promise<void> | undefined;
  private release: (() => void) | undefined;
  private keepAlive: ReturnType<typeof setInterval> | undefined;
  private cancelListeners: (() => void)[] | undefined;
  /** `end()` was called: nothing more is written. */
  ended = false;
  /** The client went away (or the stream was ended): writes are dropped. */
  gone = false;

  /** Writes one event. `data` is a serialized JSON-RPC message (JSON has no raw newlines). */
  event(data: string, id?: string): void | Promise<void> {
    return this.write(id === undefined ? `event: message\ndata: ${data}\n\n` : `id: ${id}\nevent: message\ndata: ${data}\n\n`);
  }

  /** The event that primes a client to resume (an id, no data), optionally with a `retry` hint in ms. */
  prime(id: string, retryMs?: number): void {
    void this.write(retryMs === undefined ? `id: ${id}\ndata: \n\n` : `id: ${id}\nretry: ${retryMs}\ndata: \n\n`);
  }

  /** Sends an SSE comment every `ms` so that idle intermediaries keep the connection open. */
  keepAliveEvery(ms: number): void {
    if (ms <= 0 || this.keepAlive) return;
    this.keepAlive = setInterval(() => void this.write(": keep-alive\n\n"), ms);
    (this.keepAlive as { unref?: () => void }).unref?.();
  }

  /** Ends the stream (the response is complete). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.stopKeepAlive();
    this.wake();
    if (this.target) this.target.end();
  }

  /** Runs `listener` when the client goes away before the stream ended. */
  onCancel(listener: () => void): void {
    if (this.gone) listener();
    else (this.cancelListeners ??= []).push(listener);
  }

  // ── adapter side ──

  attach(target: SseTarget): void {
    this.target = target;
    const buffered = this.gone || this.pending === "" ? undefined : this.pending;
    this.pending = "";
    if (this.ended) target.end(buffered);
    else if (buffered !== undefined && !target.write(buffered)) this.block();
  }

  /** Events are waiting for a target: its first write carries them (no need to send the headers alone). */
  get buffered(): boolean {
    return this.pending !== "" || this.ended;
  }

  /** The target takes writes again. */
  drained(): void {
    this.wake();
  }

  /** The client closed the stream (or the connection broke). */
  cancel(): void {
    if (this.gone) return;
    this.gone = true;
    this.stopKeepAlive();
    this.wake();
    const listeners = this.cancelListeners;
    this.cancelListeners = undefined;
    if (!this.ended && listeners) for (const listener of listeners) listener();
  }

  private write(chunk: string): void | Promise<void> {
    if (this.ended || this.gone) return undefined;
    if (!this.target) {
      this.pending += chunk;
      return undefined;
    }
    if (!this.target.write(chunk)) this.block();
    return this.congested;
  }

  private block(): void {
    this.congested ??= new Promise((resolve) => (this.release = resolve));
  }

  private wake(): void {
    const release = this.release;
    this.congested = undefined;
    this.release = undefined;
    release?.();
  }

  private stopKeepAlive(): void {
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.keepAlive = undefined;
  }
}

