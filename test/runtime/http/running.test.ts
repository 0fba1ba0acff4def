/** The list of running exchanges a session (or the transport) keeps, linked through its members. */
import { describe, expect, it } from "vitest";
import { RunningList, type Running } from "../../../packages/runtime/src/http/sessions.js";

interface Member extends Running {
  readonly name: string;
}
const member = (name: string): Member => ({ name, prevRunning: undefined, nextRunning: undefined });
const names = (list: RunningList<Member>): string[] => [...list].map((m) => m.name);

describe("RunningList", () => {
  it("adds and removes members anywhere in the list, and ignores what is not on it", () => {
    const list = new RunningList<Member>();
    const [a, b, c, d] = ["a", "b", "c", "d"].map(member) as [Member, Member, Member, Member];
    for (const m of [a, b, c]) list.add(m);
    expect(names(list)).toEqual(["c", "b", "a"]);
    list.delete(b); // the middle
    expect(names(list)).toEqual(["c", "a"]);
    list.delete(b); // twice
    list.delete(d); // never added
    expect(names(list)).toEqual(["c", "a"]);
    list.delete(c); // the first
    list.add(b); // again, after it left
    expect(names(list)).toEqual(["b", "a"]);
    list.delete(a); // the last
    expect(names(list)).toEqual(["b"]);
    list.delete(b);
    expect(names(list)).toEqual([]);
    expect([a, b, c].every((m) => m.prevRunning === undefined && m.nextRunning === undefined)).toBe(true);
  });

  it("goes on past a member that leaves while it is given (an exchange abandoned during a close)", () => {
    const list = new RunningList<Member>();
    for (const name of ["a", "b", "c"]) list.add(member(name));
    const seen: string[] = [];
    for (const m of list) {
      seen.push(m.name);
      list.delete(m);
    }
    expect(seen).toEqual(["c", "b", "a"]);
    expect(names(list)).toEqual([]);
  });
});
