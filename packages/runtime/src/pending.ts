/**
 * A response still to come: what a call waiting for its handler answers with (`Reply`). Whatever settles
 * the call first resolves it, once; it never rejects. The transports (stdio, and HTTP's exchanges) give
 * `whenAnswered` a callback, called from that settlement itself; anything else may treat it as a promise
 * (`then`).
 *
 * It stands in for a `Promise` on the path most calls take (an async handler). A promise there cost a
 * promise, its executor and resolving functions, and the transport's own `then` (a second promise and one
 * more turn of the microtask queue): ~190 of the ~1,250 bytes a pipelined `tools/call` allocated, and one in
 * seven of its young-generation collections (BENCHMARKS.md, "Allocation per call").
 */
export class Pending implements PromiseLike<string | undefined> {
  // `declare`d and assigned in the constructor, like Invocation's fields: `#private` members, or initialized
  // ones, cost a call of their own per instance (one per handler call) to define them.
  private declare claimed: boolean;
  private declare answered: boolean;
  private declare response: string | undefined;
  private declare waiter: ((response: string | undefined) => void) | undefined;

  constructor() {
    this.claimed = false;
    this.answered = false;
    this.response = undefined;
    this.waiter = undefined;
  }

  /**
   * Whether the caller may resolve it: `true` once, to the first caller. Claimed before the response is
   * made, so that nothing done while making it can resolve it first.
   */
  claim(): boolean {
    if (this.claimed) return false;
    this.claimed = true;
    return true;
  }

  /** Resolves it (once claimed) to `response`, or to what `response`, a promise that never rejects, resolves to. */
  resolve(response: string | undefined | Promise<string | undefined>): void {
    if (typeof response === "object") this.answerLater(response);
    else this.answer(response);
  }

  /** Calls `callback` with the response: once it is answered, or at once if it is already. */
  whenAnswered(callback: (response: string | undefined) => void): void {
    if (this.answered) return callback(this.response);
    const first = this.waiter;
    this.waiter = first === undefined ? callback : both(first, callback);
  }

  then<A = string | undefined, B = never>(
    onfulfilled?: ((response: string | undefined) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return new Promise<string | undefined>((resolve) => this.whenAnswered(resolve)).then(onfulfilled, onrejected);
  }

  // Closures are made in functions of their own: a function that makes one allocates its scope on every call.
  private answerLater(response: Promise<string | undefined>): void {
    void response.then((text) => this.answer(text));
  }

  private answer(response: string | undefined): void {
    this.answered = true;
    this.response = response;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.(response);
  }
}

function both(first: (response: string | undefined) => void, second: (response: string | undefined) => void): (response: string | undefined) => void {
  return (response) => {
    first(response);
    second(response);
  };
}
