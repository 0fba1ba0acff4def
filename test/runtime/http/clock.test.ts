/**
 * The sessions' default clock (`CoarseClock`): the system's time, taken at the first read and then by a timer
 * while it is read; a tick that finds it unread stops the timer, and the next read takes the time at once.
 */
import { afterEach, describe, expect, it } from "vitest";
import { CoarseClock } from "../../../packages/runtime/src/http/clock.js";
import { until } from "../../helpers/wait.js";

const clocks: CoarseClock[] = [];
afterEach(() => {
  for (const clock of clocks.splice(0)) clock.stop();
});

function coarse(system: () => number): CoarseClock {
  const clock = new CoarseClock(5, system);
  clocks.push(clock);
  return clock;
}

describe("CoarseClock", () => {
  it("takes the system's time at the first read, then at the ticks while it is read", async () => {
    let system = 1000;
    let reads = 0;
    const clock = coarse(() => (reads++, system));
    expect(clock.ticking).toBe(false);
    expect(clock.now()).toBe(1000);
    expect(clock.ticking).toBe(true);
    system = 1003;
    expect(clock.now()).toBe(1000); // until the next tick
    expect(reads).toBe(1);
    await until(() => clock.now() === 1003, { what: "a tick to take the new time" });
  });

  it("stops its timer when unread for a tick, and takes the time at once when read again", async () => {
    let system = 1000;
    const clock = coarse(() => system);
    clock.now();
    await until(() => !clock.ticking, { what: "the unread clock to stop ticking" });
    system = 5000;
    expect(clock.now()).toBe(5000);
    expect(clock.ticking).toBe(true);
    clock.stop();
    expect(clock.ticking).toBe(false);
  });
});
