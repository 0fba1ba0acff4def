/**
 * The time sessions are kept by when no clock is given: the system's, read at most once per `resolutionMs`
 * while it is in use. A session notes the time at each request, when it comes and when it is answered, and
 * `Date.now()` costs ~45 ns: two of them were ~4 % of what a 2025-era request costs the transport and the core
 * in process (BENCHMARKS.md). So while requests come, a timer takes the system's time every `resolutionMs`
 * and a request reads a field; a tick that finds the time unread since the one before stops the timer, and
 * the next read takes the system's time at once. What is read is at most `resolutionMs` old (more only while
 * a handler holds the event loop), so a session expires within that of its time.
 */
export class CoarseClock {
  #time = 0;
  #read = false;
  #timer: ReturnType<typeof setInterval> | undefined = undefined;

  constructor(
    private readonly resolutionMs: number,
    private readonly system: () => number = Date.now,
  ) {}

  now(): number {
    if (this.#timer === undefined) this.#start();
    this.#read = true;
    return this.#time;
  }

  /** Whether the timer runs (for the tests). */
  get ticking(): boolean {
    return this.#timer !== undefined;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #start(): void {
    this.#time = this.system();
    this.#timer = setInterval(() => this.#tick(), this.resolutionMs);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #tick(): void {
    if (!this.#read) return this.stop();
    this.#read = false;
    this.#time = this.system();
  }
}
