/**
 * The time `serve()` (the node:http adapter) keeps sessions by when no clock is given: the system's, read at
 * most once per `resolutionMs` while it is in use. A session notes the time at each request, when it comes and
 * when it is answered, and `Date.now()` costs ~45 ns: two of them were ~4 % of what a 2025-era request costs
 * the transport and the core in process (BENCHMARKS.md). So while requests come, a timer takes the system's
 * time every `resolutionMs` and a request reads a field; a tick that finds the time unread since the one before
 * stops the timer, and the next read takes the system's time at once.
 *
 * Node runs the timers that are due before it reads what came in, so what a request reads is at most
 * `resolutionMs` old however long the process was stopped, more only while a handler holds the event loop:
 * a session expires within that of its time. A fetch runtime may hold its timers while it waits for a
 * request, so `createHttpHandler` reads the system clock at every use.
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

/** How old the time may be, at most: a second, or a twentieth of the idle limit when that is shorter. */
const RESOLUTION_MS = 1000;

/** The clock of sessions that expire after `sessionIdleMs` without traffic. */
export function sessionClock(sessionIdleMs: number): CoarseClock {
  return new CoarseClock(Math.max(1, Math.min(RESOLUTION_MS, Math.floor(sessionIdleMs / 20))));
}
