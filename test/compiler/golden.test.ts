// Golden fixtures: one folder per feature under test/fixtures/<feature>/schemas, its expected output in
// test/fixtures/<feature>/expected/ (generated/ and the handler stubs in src/handlers/).
// Update after an intended change with `npx vitest run test/compiler/golden.test.ts -u`.
import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { build } from "mcpgen";
import { buildFixture, FIXTURES, readJson, readTree, REPO } from "./helpers.js";

const run = promisify(execFile);
const features = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

describe.each(features)("fixture %s", (feature) => {
  it("matches its expected output", async () => {
    const { dir } = await buildFixture(feature);
    const produced = new Map([
      ...[...(await readTree(path.join(dir, "generated")))].map(([f, c]) => [`generated/${f}`, c] as const),
      ...[...(await readTree(path.join(dir, "src/handlers")))].map(([f, c]) => [`src/handlers/${f}`, c] as const),
    ]);
    const expectedDir = path.join(FIXTURES, feature, "expected");
    const expectedFiles = existsSync(expectedDir) ? [...(await readTree(expectedDir)).keys()] : [];
    // Every expected file is still produced; a new file fails below unless snapshots are being updated.
    expect([...produced.keys()]).toEqual(expect.arrayContaining(expectedFiles));
    for (const [file, content] of produced) {
      await expect(content).toMatchFileSnapshot(path.join(FIXTURES, feature, "expected", file));
    }
  });

  it("is byte-for-byte the same when built twice, with or without the cache, on one thread or several", async () => {
    const first = await buildFixture(feature, { cache: true });
    const again = await build({ cwd: first.dir, cache: true });
    expect(again.mode === "write" && again.updated).toEqual([]);
    const expected = await readTree(path.join(first.dir, "generated"));
    for (const options of [{ cache: false }, { cache: false, jobs: 3 }]) {
      const other = await buildFixture(feature, options);
      expect(await readTree(path.join(other.dir, "generated")), JSON.stringify(options)).toEqual(expected);
    }
  });

  it("has validators that load under plain Node ESM and accept and reject the right inputs", async () => {
    const cases = await readJson<Record<string, { valid: unknown[]; invalid: unknown[] }>>(path.join(FIXTURES, feature, "cases.json"));
    // A child process: plain Node, no test-runner module transform.
    const script = `
      const cases = JSON.parse(process.argv[1]);
      const out = Object.create(null); // keys are tool names, "__proto__" among them
      for (const [tool, { valid, invalid }] of Object.entries(cases)) {
        // "tool", "resources/<template>" (variables) or "prompts/<prompt>" (arguments)
        const module = await import(${JSON.stringify(path.join(FIXTURES, feature, "expected/generated/validators/"))} + tool + ".gen.js");
        const input = module.input ?? module.variables ?? module.args;
        out[tool] = { valid: valid.map((v) => input(v)), invalid: invalid.map((v) => input(v)), errors: invalid.map((v) => (input(v), input.errors?.length ?? 0)) };
      }
      console.log(JSON.stringify(out));`;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script, JSON.stringify(cases)], { cwd: REPO });
    const results = JSON.parse(stdout) as Record<string, { valid: boolean[]; invalid: boolean[]; errors: number[] }>;
    for (const [tool, { valid, invalid }] of Object.entries(cases)) {
      expect(results[tool]!.valid, `${tool} valid`).toEqual(valid.map(() => true));
      expect(results[tool]!.invalid, `${tool} invalid`).toEqual(invalid.map(() => false));
      for (const n of results[tool]!.errors) expect(n).toBeGreaterThan(0);
    }
  });
});

describe("generated validators", () => {
  it("also load where a test runner hands CommonJS default imports over its own way", async () => {
    // vitest transforms project files and gives `import x from "<CommonJS with __esModule>"` the `default`
    // export itself, where plain Node gives the exports object: the helpers must work either way.
    const { input } = (await import("../fixtures/metadata/expected/generated/validators/send-mail.gen.js")) as {
      input: ((value: unknown) => boolean) & { errors?: unknown[] | null };
    };
    expect(input({ to: "ada@example.com", subject: "Hi" })).toBe(true);
    expect(input({ to: "ada@example.com", subject: "x".repeat(79) })).toBe(false); // maxLength: ucs2length
  });


  it("contain no require(), eval or new Function, and import only the runtime's validator helpers, its pattern engine, its URI helper and shared definitions' modules", async () => {
    for (const feature of features) {
      const validators = await readTree(path.join(FIXTURES, feature, "expected/generated/validators"));
      for (const [file, code] of validators) {
        if (!file.endsWith(".js")) continue;
        expect(code, file).not.toMatch(/\brequire\s*\(|\beval\s*\(|new Function/);
        for (const [, specifier = ""] of code.matchAll(/^import .* from "([^"]+)";$/gm)) {
          if (["@mcpgen/runtime/validators", "@mcpgen/runtime/regexp", "@mcpgen/runtime/validators-uri"].includes(specifier)) continue;
          // A shared definitions' module, beside the importing one or in defs/ below it.
          expect(specifier, file).toMatch(/^\.\/(defs\/)?[A-Za-z0-9_]+\.gen\.js$/);
          expect(validators.has(path.posix.join(path.posix.dirname(file), specifier)), `${file} imports ${specifier}`).toBe(true);
        }
      }
    }
  });
});

describe("type check", () => {
  it("tsc --noEmit passes over every fixture's expected output and the handler type assertions", async () => {
    // The expected outputs are compiled where they are, against the repo's mcpgen (self-reference).
    const result = await run(process.execPath, [path.join(REPO, "node_modules/typescript/bin/tsc"), "-p", path.join(REPO, "test/fixtures/tsconfig.json")], {
      cwd: REPO,
    }).catch((e: { stdout: string; code: number }) => e);
    expect("code" in result ? result.stdout : "").toBe("");
  }, 120_000);
});
