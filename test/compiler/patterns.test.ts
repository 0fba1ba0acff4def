// Generated validators run `pattern` and `patternProperties` on the runtime's linear-time engine: a
// catastrophic pattern answers at once, ECMA-262 meanings are kept, and no code is generated at run time.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { build } from "mcpgen";
import { RE2JS } from "re2js";
import { tempProject, writeSchemas, server } from "./helpers.js";

type Validate = ((data: unknown) => boolean) & { errors?: unknown[] | null };

const TOOL = {
  inputSchema: {
    type: "object",
    properties: {
      nested: { type: "string", pattern: "^(a+)+$" },
      spaces: { type: "string", pattern: "^\\s+$" },
      line: { type: "string", pattern: "^.$" },
      emoji: { type: "string", pattern: "^\\u{1F600}$" },
      tags: { type: "object", patternProperties: { "^(x+x+)+y$": { type: "integer" } }, additionalProperties: false },
    },
  },
};

/** Patterns V8's `RegExp` runs in linear time, and a format: no RE2 needed. */
const PLAIN = {
  inputSchema: {
    type: "object",
    properties: {
      id: { type: "string", pattern: "^T-[0-9]+$" },
      site: { type: "string", format: "uri", pattern: "^https?://" },
      web: { type: "string", format: "url" },
    },
  },
};

describe("patterns in generated validators", () => {
  let file: string;
  let plainFile: string;
  let input: Validate;

  beforeAll(async () => {
    const dir = await tempProject(true); // below the repository, where `mcpgen/runtime/regexp` resolves
    await writeSchemas(dir, server({ catastrophic: TOOL, plain: PLAIN }));
    await build({ cwd: dir, cache: false });
    file = path.join(dir, "generated/validators/catastrophic.gen.js");
    plainFile = path.join(dir, "generated/validators/plain.gen.js");
    ({ input } = (await import(pathToFileURL(file).href)) as { input: Validate });
  });

  it.each([30, 1_000, 10_000])("answers ^(a+)+$ against %i bytes at once", (size) => {
    const started = performance.now();
    expect(input({ nested: "a".repeat(size - 1) + "!" })).toBe(false);
    expect(input({ nested: "a".repeat(size) })).toBe(true);
    expect(input({ tags: { ["x".repeat(size)]: 1 } })).toBe(false);
    expect(performance.now() - started).toBeLessThan(200);
  });

  it.each([
    ["\\s is ECMA-262 white space (no-break space, BOM)", { spaces: "\u00a0\ufeff\t" }, true],
    [". leaves out line terminators", { line: "\u2028" }, false],
    [". takes a whole astral character", { line: "😀" }, true],
    ["\\u{…} escapes", { emoji: "😀" }, true],
    ["patternProperties apply to matching names", { tags: { xxy: "no" } }, false],
  ])("keeps the ECMA-262 meaning: %s", (_name, value, valid) => {
    expect(input(value)).toBe(valid);
  });

  it("checks format url with the runtime's linear-time check, not ajv-formats' expression copied in", async () => {
    const code = readFileSync(plainFile, "utf8");
    expect(code).toMatch(/const formats\d+ = runtime\d+\.fullFormats\.url;/);
    expect(code).not.toContain("ftp):");
    const plain = ((await import(pathToFileURL(plainFile).href)) as { input: Validate }).input;
    expect(plain({ web: "https://user@example.com:8080/a@b" })).toBe(true);
    expect(plain({ web: "https://10.0.0.1/" })).toBe(false);
    // ajv-formats' expression takes time quadratic in this (7 s at 128,000 colons); the check answers at once.
    expect(plain({ web: "http://" + ":".repeat(300_000) + " " })).toBe(false);
  });

  it("loads and validates under --disallow-code-generation-from-strings", () => {
    const script = `
      const { input } = await import(${JSON.stringify(pathToFileURL(file).href)});
      let blocked = false;
      try { eval("1"); } catch { blocked = true; }
      console.log(JSON.stringify({ blocked, ok: input({ nested: "aaa" }), bad: input({ nested: "a".repeat(5000) + "!" }) }));`;
    const run = spawnSync(process.execPath, ["--disallow-code-generation-from-strings", "--input-type=module", "-e", script], { encoding: "utf8", timeout: 20_000, cwd: path.dirname(file) });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({ blocked: true, ok: true, bad: false });
  });

  it("loads the RE2 engine (re2js) only with a validator that has a pattern V8 could backtrack on", () => {
    // re2js is 263 KB of code: ~6 ms and ~2.4 MiB at the first call of a tool whose validator loads it.
    expect(readFileSync(file, "utf8")).toMatch(/^import \{ regExp as runtime\d+ \} from "@mcpgen\/runtime\/regexp";$/m);
    expect(readFileSync(plainFile, "utf8")).not.toContain("@mcpgen/runtime/regexp");
    const reporter = fileURLToPath(new URL("../runtime/helpers/report-loads.mjs", import.meta.url));
    const load = (module: string, value: unknown) => {
      const script = `const { input } = await import(${JSON.stringify(pathToFileURL(module).href)}); console.log(JSON.stringify(input(${JSON.stringify(value)})));`;
      const run = spawnSync(process.execPath, ["--import", reporter, "--input-type=module", "-e", script], { encoding: "utf8", timeout: 20_000, cwd: path.dirname(module) });
      return { valid: JSON.parse(run.stdout) as boolean, re2: /^\[load\] \S*\/re2js\//m.test(run.stderr), stderr: run.stderr };
    };
    const plain = load(plainFile, { id: "T-12", site: "https://example.com/" });
    expect(plain.stderr).toContain("[load] ");
    expect(plain).toMatchObject({ valid: true, re2: false });
    expect(load(plainFile, { id: "T-12x" })).toMatchObject({ valid: false, re2: false });
    expect(load(file, { nested: "aaa" })).toMatchObject({ valid: true, re2: true });
  });
});

describe("the pattern engine's choice", () => {
  let engine: typeof import("@mcpgen/runtime/regexp");
  beforeAll(async () => {
    engine = await import("@mcpgen/runtime/regexp");
  });

  it.each([
    ["^T-[0-9]+$", true],
    ["^[a-z_]{1,64}$", true],
    ["^\\u{1F600}{2,}$", true],
    ["\\.com$", true],
    ["^[+(]\\d{3}$", true],
    ["[a-z]+", false], // unanchored with a repetition: each start position rescans
    ["^\\d*\\d*x$", false], // two repetitions that can trade characters: backtracking multiplies them
    ["^a+a+$", false],
    ["^[a-z]+[a-z0-9]+$", false],
    ["^[0-9]+x?[0-9]+$", false], // what separates them may be absent
    ["^(a+)+$", false], // a group whose iterations can follow each other in more than one way
    ["^([a-z]+-)*[a-z]+$", false],
    ["^(?:-[a-z]+)*-$", false],
    ["^a|b+$", false],
    ["^\\w+\\b\\w+$", false], // an assertion between them: not a character
    ["^\\p{L}+-\\p{L}+$", false], // a property's code points are not worked out
    ["^a+?b+$", false], // lazy
    // Optional characters: each one doubles the ways a failing match may take through them.
    ["colou?r", true],
    ["^\\d{3}-?\\d{3}-?\\d{4}$", true],
    ["^a?a?a?a?a+$", true], // four, and one repetition
    ["^a?a?a?a?a?aaaaa$", false], // five that can trade characters with what follows them
    ["^" + "a?".repeat(24) + "a".repeat(24) + "$", false],
    ["^x?y?z?w?v?u$", true], // five, none of which can match what follows it
    // Each repetition last, or followed by a character it cannot match and that must be there.
    ["^a+b+$", true],
    ["^a{2,5}b{1,}$", true],
    ["^v[0-9]+\\.[0-9]+\\.[0-9]+$", true],
    ["^[^@]+@[^@]+$", true],
    ["^\\w+@\\w+\\.\\w+$", true],
    ["^[A-Z]{2,4}-\\d+$", true],
    ["^\\S+ \\S+$", true],
    ["^[0-9]+x?y$", true],
    // A group too, when its first character says whether it starts again.
    ["^[a-z0-9]+(?:-[a-z0-9]+)*$", true],
    ["^(?:ab)*c$", true],
    ["^(ab)+$", true],
    // Alternatives, when no two of them can start with the same character.
    ["^(0[1-9]|1[0-2])$", true],
    ["^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$", true],
    ["^([01]\\d|2[0-3]):[0-5]\\d$", true],
    ["^(https?|ftp)://[^ ]+$", true],
    ["^(ab|cd)*e$", true],
    // Alternatives starting alike in one group that matches at most once: a pass per alternative.
    ["^(GET|POST|PUT)$", true],
    ["^(http|https)://[^ ]+$", true],
    ["^(a|ab)?b+$", true],
    ["^(a|ab)(c|cd)$", false], // two such groups: their alternatives multiply
    ["^(a|ab)*c$", false], // a repeated one: the passes multiply with its iterations
    ["^(a+|b)+$", false], // an alternative's repetition can run into the group's next iteration
    ["^(a|b)*a$", false], // the group can match what follows it
    ["^(https?|ftp)s$", false], // an alternative's optional end can match what follows the group
    ["^(a||b)$", false], // an empty alternative
    ["^((a|b)c)+$", false], // nested
  ])("%s runs natively: %s", (pattern, native) => {
    expect(engine.backtrackSafe(pattern)).toBe(native);
    expect(engine.default(pattern, "u") instanceof RegExp).toBe(native);
  });

  it("has the validator helpers run backtrack-safe patterns on V8 and refuse the others, which need the RE2 engine", async () => {
    const { regExp } = await import("@mcpgen/runtime/validators");
    expect(regExp("^T-[0-9]+$", "u")).toBeInstanceOf(RegExp);
    expect(() => regExp("^(a+)+$", "u")).toThrow("the pattern /^(a+)+$/u needs the linear-time engine of @mcpgen/runtime/regexp");
    expect(() => regExp("[a-z]+", "u")).toThrow("run mcpgen build");
  });

  it("answers like RE2 and stays fast on inputs built to make a backtracking engine retry", () => {
    const cases: [string, string[]][] = [
      ["^T-[0-9]+$", ["T-1", "T-", "T-12a", "T-" + "9".repeat(100_000) + "x", "t-1"]],
      ["^[a-z_]{1,64}$", ["ok_name", "", "x".repeat(64), "x".repeat(65), "Bad"]],
      ["^\\s*$", ["", " \u00a0\ufeff", " ".repeat(100_000) + "x"]],
      ["^.*$", ["abc", "a\nb", "😀"]],
      ["\\.com$", ["a.com", "acom", "x".repeat(100_000) + ".co"]],
      ["^v[0-9]+\\.[0-9]+\\.[0-9]+$", ["v1.2.3", "v1.2", "v" + "9".repeat(50_000) + "." + "9".repeat(50_000) + ".x", "v1.2.3.4"]],
      ["^[^@]+@[^@]+$", ["a@b", "a@b@c", "a".repeat(50_000) + "@" + "b".repeat(50_000) + "@", "@"]],
      ["^\\w+@\\w+\\.\\w+$", ["me@x.io", "me@x", "a".repeat(50_000) + "@" + "b".repeat(50_000) + "!", "a@b.c.d"]],
      ["^[a-z0-9]+(?:-[a-z0-9]+)*$", ["my-slug-1", "-x", "x-", "a--b", "a-".repeat(50_000) + "a!", "ab-".repeat(30_000) + "-"]],
      ["^[^.][^/]*(/[^.][^/]*)*$", ["a/b", ".a", "a/.b", "a/".repeat(50_000) + ".", "ab/".repeat(30_000) + "/"]],
      ["^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$", ["2026-11-27", "2026-13-01", "2026-00-10", "2026-02-32", "2026-1-1", "9".repeat(100_000)]],
      ["^(https?|ftp)://[^ ]+$", ["https://x.io", "ftp://a", "httpss://a", "http://", "http://" + "a".repeat(100_000) + " "]],
      ["^(ab|cd)*e$", ["e", "abcde", "abce", "ab".repeat(30_000) + "cd".repeat(20_000) + "!", "abc".repeat(30_000)]],
      ["^(a|ab)?b+$", ["b", "ab", "abb", "a", "ab" + "b".repeat(100_000) + "a", "a".repeat(100_000)]],
    ];
    const started = performance.now();
    for (const [pattern, inputs] of cases) {
      const native = engine.default(pattern, "u");
      expect(native).toBeInstanceOf(RegExp);
      const reference = engine.translate(pattern);
      for (const input of inputs) expect(native.test(input), `${pattern} on ${input.slice(0, 20)}`).toBe(re2(reference, input));
    }
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

/** RE2's answer, through the engine's own translation (the reference the native choice must agree with). */
function re2(translated: string, input: string): boolean {
  return RE2JS.compile(translated).test(input);
}
