// `mcpgen lint`: each rule on a small case (table), then the real CLI on a fixture folder and on the saved
// tools/list of published servers, compared with golden outputs in test/lint/expected/.
import { existsSync, readFileSync } from "node:fs";
import { cp } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { lint, RULES, PROFILES, type Profile } from "../../src/lint/index.js";
import type { Listing } from "../../src/lint/input.js";
import { REPO, tempProject } from "../compiler/helpers.js";
import { mcpgen } from "./helpers.js";

const EXPECTED = path.join(REPO, "test/lint/expected");
// Not below test/fixtures, where every folder is a golden build fixture.
const FIXTURES = path.join(REPO, "test/lint/fixtures");
const PUBLISHED = ["server-everything", "server-filesystem", "server-memory"];

/** A listing of tools given as (name, input schema) pairs, for a server called `server`. */
function listing(tools: [string, unknown][], server = "s"): Listing {
  return {
    server,
    tools: tools.map(([name, inputSchema], i) => ({ wire: { name, inputSchema } as never, file: "tools.json", at: `/tools/${i}` })),
    prompts: [],
    resources: [],
    resourceTemplates: [],
  };
}
const closed = (properties: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  type: "object",
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
  ...extra,
});
const nest = (depth: number): unknown => (depth === 0 ? { type: "string" } : closed({ a: nest(depth - 1) }));

const cases: { rule: string; profile: Profile; given: [string, unknown][]; pointer: string; server?: string }[] = [
  { rule: "anthropic-tool-name", profile: "anthropic", given: [["files.read", closed()]], pointer: "/tools/0/name" },
  { rule: "openai-tool-name", profile: "openai-strict", given: [["x".repeat(65), closed()]], pointer: "/tools/0/name" },
  { rule: "gemini-tool-name", profile: "gemini", given: [["1st", { type: "object" }]], pointer: "/tools/0/name" },
  { rule: "portable-tool-name", profile: "portable", given: [["a b", closed()]], pointer: "/tools/0/name" },
  { rule: "input-schema-object", profile: "anthropic", given: [["t", { type: "string" }]], pointer: "/tools/0/inputSchema" },
  { rule: "openai-additional-properties", profile: "openai-strict", given: [["t", { type: "object", properties: {} }]], pointer: "/tools/0/inputSchema" },
  { rule: "openai-all-required", profile: "openai-strict", given: [["t", closed({ a: { type: "string" } }, { required: [] })]], pointer: "/tools/0/inputSchema/properties/a" },
  { rule: "openai-root-union", profile: "openai-strict", given: [["t", closed({}, { anyOf: [closed()] })]], pointer: "/tools/0/inputSchema/anyOf" },
  { rule: "openai-unsupported-keyword", profile: "openai-strict", given: [["t", closed({ a: { if: {} } })]], pointer: "/tools/0/inputSchema/properties/a/if" },
  { rule: "openai-unlisted-keyword", profile: "openai-strict", given: [["t", closed({ a: { type: "array", uniqueItems: true } })]], pointer: "/tools/0/inputSchema/properties/a/uniqueItems" },
  { rule: "openai-format", profile: "openai-strict", given: [["t", closed({ a: { type: "string", format: "uri" } })]], pointer: "/tools/0/inputSchema/properties/a/format" },
  { rule: "openai-nesting", profile: "openai-strict", given: [["t", nest(11)]], pointer: "/tools/0/inputSchema" + "/properties/a".repeat(10) },
  {
    rule: "openai-size",
    profile: "openai-strict",
    given: [["t", closed({ a: { type: "string", enum: Array.from({ length: 1001 }, (_, i) => `v${i}`) } })]],
    pointer: "/tools/0/inputSchema",
  },
  { rule: "gemini-ref", profile: "gemini", given: [["t", { type: "object", properties: { a: { $ref: "#/properties/b" }, b: { type: "string" } } }]], pointer: "/tools/0/inputSchema/properties/a/$ref" },
  { rule: "gemini-type-array", profile: "gemini", given: [["t", { type: "object", properties: { a: { type: ["string", "null"] } } }]], pointer: "/tools/0/inputSchema/properties/a/type" },
  { rule: "gemini-unsupported-keyword", profile: "gemini", given: [["t", { type: "object", properties: { a: { oneOf: [{ type: "string" }] } } }]], pointer: "/tools/0/inputSchema/properties/a/oneOf" },
  { rule: "gemini-parameter-name", profile: "gemini", given: [["t", { type: "object", properties: { "a-b": { type: "string" } } }]], pointer: "/tools/0/inputSchema/properties/a-b" },
  { rule: "cursor-tool-count", profile: "cursor", given: Array.from({ length: 41 }, (_, i): [string, unknown] => [`t${i}`, closed()]), pointer: "/tools/40" },
  { rule: "cursor-name-length", profile: "cursor", given: [["t".repeat(30), closed()]], pointer: "/tools/0/name", server: "s".repeat(31) },
  { rule: "portable-root-union", profile: "portable", given: [["t", closed({}, { oneOf: [closed()] })]], pointer: "/tools/0/inputSchema/oneOf" },
  { rule: "portable-nested-defs", profile: "portable", given: [["t", closed({}, { $defs: { a: { $defs: { b: { type: "string" } } } } })]], pointer: "/tools/0/inputSchema/$defs/a/$defs" },
  { rule: "portable-external-ref", profile: "portable", given: [["t", closed({ a: { $ref: "https://example.com/a.json" } })]], pointer: "/tools/0/inputSchema/properties/a/$ref" },
  { rule: "portable-recursion", profile: "portable", given: [["t", closed({ a: { $ref: "#" } })]], pointer: "/tools/0/inputSchema/properties/a/$ref" },
];

describe("lint rules", () => {
  it.each(cases)("$rule ($profile)", ({ rule, profile, given, pointer, server }) => {
    const found = lint(listing(given, server), [profile]).filter((f) => f.rule === rule);
    expect(found.map((f) => f.pointer)).toEqual([pointer]);
  });

  it("covers every rule with a case, and passes a schema that meets each profile", () => {
    expect(new Set(cases.map((c) => c.rule))).toEqual(new Set(RULES.map((r) => r.id)));
    const fine = closed({ q: { type: "string", description: "query" }, n: { type: "integer", minimum: 1 } });
    expect(lint(listing([["search", fine]]), ["openai-strict", "anthropic", "cursor", "portable"])).toEqual([]);
    // strict mode asks for additionalProperties: false, which Gemini's schema subset has no field for
    const { additionalProperties: _, ...open } = fine;
    expect(lint(listing([["search", open]]), ["gemini", "anthropic", "cursor", "portable"])).toEqual([]);
  });

  it("documents every rule in docs/lint.md with the page it comes from", () => {
    const doc = readFileSync(path.join(REPO, "docs/lint.md"), "utf8");
    for (const rule of RULES) {
      const line = doc.split("\n").find((l) => l.includes(`\`${rule.id}\``));
      expect(line, rule.id).toBeDefined();
      expect(line, rule.id).toContain(rule.source);
      for (const profile of rule.profiles) expect(line, `${rule.id} ${profile}`).toContain(profile);
    }
  });
});

describe("mcpgen lint (CLI)", () => {
  it.each(PROFILES)("lints a schemas folder against %s", async (profile) => {
    const run = await mcpgen(FIXTURES, "lint", "schemas", "--profile", profile);
    await expect(run.stdout).toMatchFileSnapshot(path.join(EXPECTED, `fixture.${profile}.txt`));
    expect(run.code).toBe(run.stdout.match(/: (\d+) errors?,/)![1] === "0" ? 0 : 1);
  });

  it.each(PUBLISHED)("lints the saved tools/list of the published %s against every profile", async (server) => {
    const run = await mcpgen(REPO, "lint", `test/lint/fixtures/published/${server}.json`, ...PROFILES.flatMap((p) => ["-p", p]));
    await expect(run.stdout).toMatchFileSnapshot(path.join(EXPECTED, `${server}.txt`));
    expect(run.code).toBe(1);
    expect(run.stderr).toBe("");
  });

  it("passes the example server against the default profile", async () => {
    const run = await mcpgen(REPO, "lint");
    expect(run).toMatchObject({ code: 0, stdout: "mcpgen lint: 7 tools against portable: 0 errors, 0 warnings\n" });
  });

  it("refuses an unknown profile and unreadable input", async () => {
    const bad = await mcpgen(REPO, "lint", "-p", "claude");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("one of openai-strict, gemini, anthropic, cursor, portable");
    const missing = await mcpgen(REPO, "lint", "nowhere.json");
    expect(missing).toMatchObject({ code: 1, stderr: "mcpgen: nowhere.json: no such file or folder\n" });
    const help = await mcpgen(REPO, "lint", "--help");
    expect(help.stdout).toContain("--profile <name>");
  });

  it("build --profile stops before writing anything when a rule fails", async () => {
    const dir = await tempProject();
    await cp(path.join(FIXTURES, "schemas"), path.join(dir, "schemas"), { recursive: true });
    const run = await mcpgen(dir, "build", "--profile", "anthropic");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('schemas/tools/notes.search.json#/name: tool name "notes.search" does not match ^[a-zA-Z0-9_-]{1,64}$ [anthropic-tool-name]');
    expect(run.stderr).toContain("mcpgen: lint errors; nothing was written");
    expect(existsSync(path.join(dir, "generated"))).toBe(false);
    const warnOnly = await mcpgen(dir, "build", "--profile", "cursor", "--quiet");
    expect(warnOnly.code).toBe(0);
    expect(warnOnly.stderr).toContain("[cursor-name-length]");
    expect(existsSync(path.join(dir, "generated"))).toBe(true);
  });
});
