// When mcpgen dev counts a changed file as saved (src/dev/writes.ts): real files, a fake clock and timers.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Writes } from "../../dist/dev/writes.js";
import { tempProject } from "../compiler/helpers.js";

let dir: string;
let writes: Writes;
/** What the file held each time it was reported whole ("gone" when it did not exist). */
let reported: string[];

beforeEach(async () => {
  dir = await tempProject();
  vi.useFakeTimers();
  reported = [];
  writes = new Writes((file) => {
    try {
      reported.push(readFileSync(file, "utf8"));
    } catch {
      reported.push("gone");
    }
  }, { now: () => Date.now() });
});

afterEach(() => {
  writes.close();
  vi.useRealTimers();
});

describe("mcpgen dev's saved files", () => {
  it("counts a JSON file at once when it parses, and a half-written one only once it does", () => {
    const file = path.join(dir, "add.json");
    writeFileSync(file, '{"description": "v1"}');
    writes.changed(file);
    expect(reported).toEqual(['{"description": "v1"}']);

    writeFileSync(file, '{"description": "v2", "inputSch');
    writes.changed(file);
    vi.advanceTimersByTime(30);
    expect(reported).toHaveLength(1);
    writeFileSync(file, '{"description": "v2", "inputSchema": {"type": "object"}}');
    vi.advanceTimersByTime(10);
    expect(reported).toEqual(['{"description": "v1"}', '{"description": "v2", "inputSchema": {"type": "object"}}']);
  });

  it("sees a change the watcher reports no event for (chokidar drops them for 50 ms after one)", () => {
    const file = path.join(dir, "add.json");
    writeFileSync(file, '{"description": "v1"}');
    writes.changed(file);
    vi.advanceTimersByTime(20);
    writeFileSync(file, '{"description": "version 2"}');
    vi.advanceTimersByTime(10);
    expect(reported).toEqual(['{"description": "v1"}', '{"description": "version 2"}']);
    vi.advanceTimersByTime(1000);
    expect(reported).toHaveLength(2);
  });

  it("counts a file that may be half-written once it has stopped changing: JSON that does not parse (for the build to report), YAML and handlers (a prefix of them may parse)", () => {
    for (const [name, text] of [["add.json", '{"description": '], ["add.yaml", "description: v1\n"], ["add.ts", "description: v1\n"]] as const) {
      reported = [];
      const file = path.join(dir, name);
      writeFileSync(file, text);
      writes.changed(file);
      vi.advanceTimersByTime(30);
      expect(reported).toEqual([]);
      vi.advanceTimersByTime(20);
      expect(reported).toEqual([text]);
    }
  });

  it("counts a deleted file at once, and each file on its own", () => {
    const [a, b] = [path.join(dir, "a.json"), path.join(dir, "b.yaml")];
    writeFileSync(a, "{}");
    writeFileSync(b, "x: 1\n");
    writes.changed(b);
    rmSync(a);
    writes.changed(a);
    expect(reported).toEqual(["gone"]);
    vi.advanceTimersByTime(50);
    expect(reported).toEqual(["gone", "x: 1\n"]);
  });
});
