import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRedis, type RedisState } from "../../packages/runtime/src/state/redis.js";
import { startRedis, type RedisServer } from "../helpers/redis.js";

let server: RedisServer;
const opened: RedisState[] = [];
const open = async (prefix: string): Promise<RedisState> => {
  const state = await connectRedis(server.url, { prefix, maxEventsPerStream: 3 });
  opened.push(state);
  return state;
};

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await Promise.all(opened.map((state) => state.close()));
  await server?.stop();
});

/** Resolves with the first `count` messages `subscribe` delivers, or rejects after `ms`. */
function collect(count: number, ms = 5_000): { messages: string[]; done: Promise<string[]>; push(message: string): void } {
  const messages: string[] = [];
  let resolve!: (value: string[]) => void;
  const done = new Promise<string[]>((ok, fail) => {
    resolve = ok;
    setTimeout(() => fail(new Error(`got ${messages.length} of ${count} messages: ${JSON.stringify(messages)}`)), ms).unref();
  });
  return {
    messages,
    done,
    push(message) {
      messages.push(message);
      if (messages.length === count) resolve(messages);
    },
  };
}

describe("RedisEventStore", () => {
  it("replays what another instance stored after the given id, per stream, in order", async () => {
    const [a, b] = [await open("ev1:"), await open("ev1:")];
    await a.events.append("s1", "7", "7_1", '{"n":1}');
    await a.events.append("s1", "7", "7_2", '{"n":2}');
    await a.events.append("s1", "8", "8_1", '{"other":1}');
    await a.events.append("s1", "7", "7_3", '{"n":3}');
    expect(await b.events.replay("s1", "7_1")).toEqual({ streamId: "7", events: [{ id: "7_2", message: '{"n":2}' }, { id: "7_3", message: '{"n":3}' }] });
    expect(await b.events.replay("s1", "7_3")).toEqual({ streamId: "7", events: [] });
    expect(await b.events.replay("s1", "9_1")).toBeUndefined();
    expect(await b.events.replay("s2", "7_1")).toBeUndefined();
    expect(await b.events.replay("s1", "not-an-id")).toBeUndefined();
  });

  it("forgets the oldest events past the per-stream bound, and everything of a dropped session", async () => {
    const a = await open("ev2:");
    for (let n = 1; n <= 5; n++) await a.events.append("s", "1", `1_${n}`, String(n));
    expect(await a.events.replay("s", "1_1")).toBeUndefined(); // 1_2 is forgotten: replaying would lose it
    // 1_2 itself is forgotten, but everything after it is kept; so is everything after a priming id.
    expect((await a.events.replay("s", "1_2"))?.events.map((event) => event.id)).toEqual(["1_3", "1_4", "1_5"]);
    expect(await a.events.replay("s", "9_0")).toEqual({ streamId: "9", events: [] });
    expect(await a.events.replay("s", "1_3")).toEqual({ streamId: "1", events: [{ id: "1_4", message: "4" }, { id: "1_5", message: "5" }] });
    await a.events.dropSession("s");
    expect(await a.events.replay("s", "1_3")).toBeUndefined();
  });
});

describe("RedisBus", () => {
  it("delivers what one instance publishes to every subscribed instance, itself included, until unsubscribed", async () => {
    const [a, b] = [await open("bus:"), await open("bus:")];
    const onA = collect(2);
    const onB = collect(2);
    const stopA = await a.bus.subscribe("changes", onA.push);
    await b.bus.subscribe("changes", onB.push);
    await b.bus.subscribe("elsewhere", () => onB.push("wrong channel"));
    await a.bus.publish("changes", "one");
    await b.bus.publish("changes", "two");
    expect(await onA.done).toEqual(["one", "two"]);
    expect(await onB.done).toEqual(["one", "two"]);
    await stopA();
    const after = collect(1);
    await b.bus.subscribe("changes", after.push);
    await a.bus.publish("changes", "three");
    expect(await after.done).toEqual(["three"]);
    // Ordered on b's one subscriber connection: a's stopped listener would have had "three" before this point.
    expect(onA.messages).toEqual(["one", "two"]);
  });

  it("keeps servers with different prefixes apart", async () => {
    const [a, b] = [await open("p1:"), await open("p2:")];
    const onB = collect(1);
    await b.bus.subscribe("changes", onB.push);
    await a.bus.publish("changes", "for p1 only");
    await b.bus.publish("changes", "for p2");
    expect(await onB.done).toEqual(["for p2"]);
  });
});

describe("connectRedis", () => {
  it("says clearly when the server cannot be reached, without the password", async () => {
    const url = "redis://user:secret@127.0.0.1:1";
    await expect(connectRedis(url)).rejects.toThrow(/cannot connect to Redis at redis:\/\/user:\*\*\*@127\.0\.0\.1:1/);
  });
});
