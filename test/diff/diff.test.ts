// `mcpgen diff`: the schema comparison on small cases (table), then the real CLI between two schemas
// folders, a git revision and a folder, and two saved tools/list files, with golden outputs.
import { execFileSync } from "node:child_process";
import { cp, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { compareSchemas, type Change } from "../../src/diff/compare.js";
import { REPO, tempProject } from "../compiler/helpers.js";
import { mcpgen } from "../lint/helpers.js";

const EXPECTED = path.join(REPO, "test/diff/expected");
// Not below test/fixtures, where every folder is a golden build fixture.
const DIFF = path.join(REPO, "test/diff/fixtures");
const PUBLISHED = path.join(REPO, "test/lint/fixtures/published");

function changes(a: unknown, b: unknown, dir: "input" | "output") {
  const out: Omit<Change, "kind" | "name">[] = [];
  compareSchemas(a as never, b as never, dir, "", (c) => out.push(c));
  return out.map((c) => `${c.level} ${c.pointer} ${c.rule}`);
}

const str = { type: "string" };
const cases: { name: string; dir: "input" | "output"; given: [unknown, unknown]; want: string[] }[] = [
  { name: "type narrowed", dir: "input", given: [{ type: ["string", "number"] }, str], want: ["breaking /type input-type-narrowed"] },
  { name: "integer to number widens", dir: "input", given: [{ type: "integer" }, { type: "number" }], want: ["compatible /type input-type-widened"] },
  { name: "minLength raised", dir: "input", given: [{ ...str, minLength: 1 }, { ...str, minLength: 3 }], want: ["breaking /minLength input-bound-tightened"] },
  { name: "maximum removed", dir: "input", given: [{ maximum: 5 }, {}], want: ["compatible /maximum input-bound-loosened"] },
  { name: "enum value added to an output", dir: "output", given: [{ enum: ["a"] }, { enum: ["a", "b"] }], want: ["breaking /enum output-enum-widened"] },
  { name: "output field dropped", dir: "output", given: [{ properties: { a: str } }, { properties: {} }], want: ["breaking /properties/a output-property-removed"] },
  { name: "input closed", dir: "input", given: [{ type: "object" }, { type: "object", additionalProperties: false }], want: ["breaking /additionalProperties input-closed"] },
  { name: "new required input", dir: "input", given: [{ properties: {} }, { properties: { a: str }, required: ["a"] }], want: ["breaking /required input-required-added"] },
  { name: "pattern added", dir: "input", given: [str, { ...str, pattern: "^a" }], want: ["breaking /pattern input-pattern-changed"] },
  { name: "description only", dir: "input", given: [{ ...str, description: "a" }, { ...str, description: "b" }], want: ["patch /description description-changed"] },
  { name: "union alternative removed", dir: "input", given: [{ anyOf: [str, { type: "null" }] }, { anyOf: [str] }], want: ["breaking /anyOf input-union-narrowed"] },
];

describe("schema comparison", () => {
  it.each(cases)("$name", ({ dir, given, want }) => expect(changes(given[0], given[1], dir)).toEqual(want));
});

describe("mcpgen diff (CLI)", () => {
  it("classifies the changes between two schemas folders, grouped by tool, and exits 1 on a breaking one", async () => {
    const run = await mcpgen(DIFF, "diff", "v1/schemas", "v2/schemas");
    await expect(run.stdout).toMatchFileSnapshot(path.join(EXPECTED, "v1-v2.txt"));
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/suggested version bump: major\n$/);
    const allowed = await mcpgen(DIFF, "diff", "v1/schemas", "v2/schemas", "--allow-breaking");
    expect(allowed).toMatchObject({ code: 0, stdout: run.stdout });
  });

  it("prints JSON with --json", async () => {
    const run = await mcpgen(DIFF, "diff", "v1/schemas", "v2/schemas", "--json", "--allow-breaking");
    await expect(run.stdout).toMatchFileSnapshot(path.join(EXPECTED, "v1-v2.json"));
    const parsed = JSON.parse(run.stdout) as { bump: string; changes: Change[] };
    expect(parsed.bump).toBe("major");
    expect(parsed.changes.find((c) => c.rule === "input-required-added")).toMatchObject({ kind: "tool", name: "search", pointer: "/inputSchema/required", level: "breaking" });
  });

  it("reads the old side from a git revision, <rev>:<path>", async () => {
    const dir = await tempProject();
    const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd: dir, stdio: "pipe" });
    git("init", "-q");
    await cp(path.join(DIFF, "v1/schemas"), path.join(dir, "schemas"), { recursive: true });
    git("add", "schemas");
    git("commit", "-qm", "v1");
    git("tag", "v1.0.0");
    await cp(path.join(DIFF, "v2/schemas"), path.join(dir, "schemas"), { recursive: true, force: true });
    git("rm", "-q", "schemas/tools/lookup.json", "schemas/resources/terms.json");
    const run = await mcpgen(dir, "diff", "v1.0.0:schemas", "schemas");
    expect(run.stdout).toBe(await readFile(path.join(EXPECTED, "v1-v2.txt"), "utf8"));
    expect(run.code).toBe(1);
    const same = await mcpgen(dir, "diff", "v1.0.0:schemas", "HEAD:schemas");
    expect(same).toMatchObject({ code: 0, stdout: "mcpgen diff: 0 breaking changes, 0 compatible changes, 0 description changes; no change\n" });
    const bad = await mcpgen(dir, "diff", "v9:schemas", "schemas");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^mcpgen: v9:schemas: not a path, and git cannot read it as <rev>:<path>: /);
  });

  it("compares saved tools/list files of a published server", async () => {
    const dir = await tempProject();
    const saved = JSON.parse(await readFile(path.join(PUBLISHED, "server-memory.json"), "utf8")) as { tools: { name: string; inputSchema: { required?: string[] } }[] };
    const removed = saved.tools.pop()!;
    saved.tools[0]!.inputSchema.required = [...(saved.tools[0]!.inputSchema.required ?? []), "extra"];
    await writeFile(path.join(dir, "new.json"), JSON.stringify({ result: saved }));
    const run = await mcpgen(dir, "diff", path.join(PUBLISHED, "server-memory.json"), "new.json");
    await expect(run.stdout).toMatchFileSnapshot(path.join(EXPECTED, "server-memory.txt"));
    expect(run.stdout).toContain(`tool ${removed.name}\n  breaking   removed`);
    expect(run.code).toBe(1);
  });

  it("has help", async () => {
    const help = await mcpgen(REPO, "diff", "--help");
    for (const flag of ["<old>", "<new>", "--json", "--allow-breaking", "<rev>:<path>"]) expect(help.stdout).toContain(flag);
  });
});
