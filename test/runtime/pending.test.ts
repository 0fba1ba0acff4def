import { describe, expect, it } from "vitest";
import { Pending } from "../../packages/runtime/src/pending.js";

describe("Pending", () => {
  it("calls its waiters once, in order, when it is answered, and a later waiter at once", () => {
    const pending = new Pending();
    const heard: string[] = [];
    pending.whenAnswered((response) => heard.push(`first ${response}`));
    pending.whenAnswered((response) => heard.push(`second ${response}`));
    expect(heard).toEqual([]);
    pending.resolve("ok");
    expect(heard).toEqual(["first ok", "second ok"]);
    pending.whenAnswered((response) => heard.push(`late ${response}`));
    expect(heard).toEqual(["first ok", "second ok", "late ok"]);
  });

  it("is claimed by its first caller only, and answers with what a promise given to resolve resolves to", async () => {
    const pending = new Pending();
    expect(pending.claim()).toBe(true);
    expect(pending.claim()).toBe(false);
    const heard: (string | undefined)[] = [];
    pending.whenAnswered((response) => heard.push(response));
    let release!: (text: string) => void;
    pending.resolve(new Promise<string>((resolve) => (release = resolve)));
    await Promise.resolve();
    expect(heard).toEqual([]);
    release("from the promise");
    await expect(pending).resolves.toBe("from the promise");
    expect(heard).toEqual(["from the promise"]);
  });

  it("answers undefined (a cancelled call) like any response", async () => {
    const pending = new Pending();
    let heard: unknown = "nothing";
    pending.whenAnswered((response) => (heard = response));
    pending.resolve(undefined);
    expect(heard).toBeUndefined();
    expect(await pending).toBeUndefined();
  });

  it("works where a promise is expected: await, then chains, Promise.all and Promise.resolve", async () => {
    const pending = new Pending();
    const chained = pending.then((response) => `${response}!`);
    const all = Promise.all([pending, "other"]);
    const wrapped = Promise.resolve(pending);
    expect(chained).toBeInstanceOf(Promise);
    pending.resolve("done");
    expect(await pending).toBe("done");
    expect(await chained).toBe("done!");
    expect(await all).toEqual(["done", "other"]);
    expect(await wrapped).toBe("done");
  });
});
