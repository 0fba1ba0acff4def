/**
 * When the node:http adapter writes answers: a lone answer at once, a burst's answers together at its end,
 * and with few connections open every answer at once.
 */
import { describe, expect, it } from "vitest";
import { FEW_CONNECTIONS, Turn } from "../../../packages/runtime/src/http/node.js";

/**
 * A Turn on a fake loop with `connections` open: `waited()` is the loop waiting for I/O, `endTurn()` runs what
 * waits for the turn's end.
 */
function fakeLoop(connections = FEW_CONNECTIONS + 1) {
  let idle = 0;
  let pending: (() => void)[] = [];
  const written: string[] = [];
  const turn = new Turn(
    () => idle,
    (run) => pending.push(run),
  );
  for (let i = 0; i < connections; i++) turn.opened();
  const answer = (name: string): void => turn.answer({ flush: () => written.push(name) });
  return {
    answer,
    written,
    opened: () => turn.opened(),
    closed: () => turn.closed(),
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

  it("writes every answer at once while few connections are open, and batches again once more are", () => {
    const loop = fakeLoop(FEW_CONNECTIONS);
    loop.waited();
    for (const name of ["a", "b", "c"]) loop.answer(name); // the loop did not wait between them
    expect(loop.written).toEqual(["a", "b", "c"]);
    expect(loop.scheduled()).toBe(0);

    loop.opened(); // one connection more: a burst's first answer at once, the rest at its end
    loop.answer("d");
    loop.answer("e");
    expect(loop.written).toEqual(["a", "b", "c", "d"]);
    loop.endTurn();
    expect(loop.written).toEqual(["a", "b", "c", "d", "e"]);

    loop.closed();
    loop.answer("f"); // few again: at once, the loop still busy
    loop.answer("g");
    expect(loop.written).toEqual(["a", "b", "c", "d", "e", "f", "g"]);
    expect(loop.scheduled()).toBe(0);
  });

  it("reads the loop's idle time by default, which moves once the loop has waited", async () => {
    const written: string[] = [];
    const turn = new Turn();
    for (let i = 0; i <= FEW_CONNECTIONS; i++) turn.opened();
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
