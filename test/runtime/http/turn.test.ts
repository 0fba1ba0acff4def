/** When the node:http adapter writes answers: a lone answer at once, a burst's answers together at its end. */
import { describe, expect, it } from "vitest";
import { Turn } from "../../../packages/runtime/src/http/node.js";

/** A Turn on a fake loop: `waited()` is the loop waiting for I/O, `endTurn()` runs what waits for the turn's end. */
function fakeLoop() {
  let idle = 0;
  let pending: (() => void)[] = [];
  const written: string[] = [];
  const turn = new Turn(
    () => idle,
    (run) => pending.push(run),
  );
  const answer = (name: string): void => turn.answer({ flush: () => written.push(name) });
  return {
    answer,
    written,
    waited: () => (idle += 0.05),
    scheduled: () => pending.length,
    endTurn: () => {
      const now = pending;
      pending = [];
      for (const run of now) run();
    },
  };
}

describe("Turn", () => {
  it("writes a lone answer at once and schedules nothing", () => {
    const loop = fakeLoop();
    for (const name of ["a", "b", "c"]) {
      loop.waited();
      loop.answer(name);
    }
    expect(loop.written).toEqual(["a", "b", "c"]);
    expect(loop.scheduled()).toBe(0);
  });

  it("holds a burst's later answers for its end, keeps batching while bursts give several, and stops after a lone one", () => {
    const loop = fakeLoop();
    loop.waited();
    loop.answer("a"); // the first of the burst: at once
    loop.answer("b"); // the loop did not wait since: held
    loop.answer("c");
    expect(loop.written).toEqual(["a"]);
    expect(loop.scheduled()).toBe(1); // one check for the whole burst
    loop.endTurn();
    expect(loop.written).toEqual(["a", "b", "c"]);

    loop.waited();
    loop.answer("d"); // the last batch held two: still batching, even after a wait
    loop.answer("e");
    expect(loop.written).toEqual(["a", "b", "c"]);
    loop.endTurn();
    expect(loop.written).toEqual(["a", "b", "c", "d", "e"]);

    loop.waited();
    loop.answer("f"); // batched, alone in its batch: batching stops
    loop.endTurn();
    loop.waited();
    loop.answer("g"); // at once again
    expect(loop.written).toEqual(["a", "b", "c", "d", "e", "f", "g"]);
    expect(loop.scheduled()).toBe(0);
  });

  it("reads the loop's idle time by default, which moves once the loop has waited", async () => {
    const written: string[] = [];
    const turn = new Turn();
    const answer = (name: string): void => turn.answer({ flush: () => written.push(name) });
    answer("first");
    answer("same turn");
    expect(written).toEqual(["first"]);
    await new Promise((resolve) => setTimeout(resolve, 5)); // the loop waits for the timer
    expect(written).toEqual(["first", "same turn"]);
    answer("after a wait"); // the batch held one: at once
    expect(written).toEqual(["first", "same turn", "after a wait"]);
  });
});
