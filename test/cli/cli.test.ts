// End-to-end: the real `mcpgen` binary, asserting exit codes, stderr and what lands on disk.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { appendFile, cp, mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { readTree, REPO, server, tempProject, writeSchemas } from "../compiler/helpers.js";

const BIN = path.join(REPO, "bin/mcpgen.js");

async function mcpgen(cwd: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [BIN, ...args], { cwd, timeout: 30_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

const tool = (props: Record<string, unknown> = {}) => ({
  description: "A tool.",
  inputSchema: { type: "object", properties: { q: { type: "string" }, ...props } },
});

async function project(tools: Record<string, unknown> = { search: tool(), fetch: tool() }): Promise<string> {
  const dir = await tempProject();
  await writeSchemas(dir, server(tools));
  return dir;
}

describe("mcpgen CLI", () => {
  it("prints help for every command, with every option", async () => {
    const top = await mcpgen(REPO, "--help");
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/build \[options\] \[schemas\]/);
    expect(top.stdout).toMatch(/init \[options\] <dir>/);
    const help = await mcpgen(REPO, "build", "--help");
    expect(help.code).toBe(0);
    for (const flag of ["--out <dir>", "--handlers <dir>", "--check", "--no-cache", "--jobs <n>", "--quiet"]) expect(help.stdout).toContain(flag);
    expect((await mcpgen(REPO, "--version")).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("exits 2 on usage errors", async () => {
    const bad = await mcpgen(REPO, "build", "--frobnicate");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown option '--frobnicate'");
    expect((await mcpgen(REPO, "nonsense")).code).toBe(2);
    for (const jobs of ["0", "two", "1.5"]) {
      const result = await mcpgen(REPO, "build", "--jobs", jobs);
      expect(result.code, jobs).toBe(2);
      expect(result.stderr).toContain("a whole number from 1 to 64");
    }
  });

  it("builds, reports created handlers, and is a no-op the second time", async () => {
    const dir = await project();
    const first = await mcpgen(dir, "build");
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(""); // stdout stays clean; messages go to stderr
    expect(first.stderr).toMatch(/2 tools → generated\/ \(8 written, 0 removed/);
    expect(first.stderr).toContain("created handler src/handlers/fetch.ts");
    expect(first.stderr).toContain("created handler src/handlers/search.ts");
    const second = await mcpgen(dir, "build");
    expect(second.stderr).toMatch(/2 tools → generated\/ \(unchanged/);
    expect(second.stderr).not.toContain("created handler");
    expect((await mcpgen(dir, "build", "--quiet")).stderr).toBe("");
  });

  it("never overwrites a handler file", async () => {
    const dir = await project();
    await mcpgen(dir, "build");
    const handler = path.join(dir, "src/handlers/search.ts");
    await writeFile(handler, "// mine\n");
    await writeSchemas(dir, { "tools/search.json": tool({ extra: { type: "number" } }) });
    expect((await mcpgen(dir, "build")).code).toBe(0);
    expect(await readFile(handler, "utf8")).toBe("// mine\n");
  });

  it("reports every problem as file#pointer, sorted, exits 1 and writes nothing", async () => {
    const dir = await project();
    await mcpgen(dir, "build");
    const before = await readTree(dir);
    await writeSchemas(dir, {
      "tools/search.json": { inputSchema: { type: "object", properties: { q: { $ref: "../defs/nope.json" } } } },
      "tools/fetch.json": { inputSchema: { type: "array" } },
      "tools/new.json": tool(),
    });
    const { code, stdout, stderr } = await mcpgen(dir, "build");
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr.trim().split("\n")).toEqual([
      'schemas/tools/fetch.json#/inputSchema: inputSchema must be an object schema: declare "type": "object" at its root (found "array")',
      'schemas/tools/new.json#: tool "new" has no behaviour hints in schemas/annotations.json: add it under "tools" (e.g. "new": "readOnly"), or set "requireHints": false',
      'schemas/tools/search.json#/inputSchema/properties/q/$ref: cannot resolve "../defs/nope.json": no such file in defs/ (cross-file references must point into the defs/ folder)',
      "mcpgen: 3 problems; nothing was written",
    ]);
    const after = await readTree(dir);
    for (const file of before.keys()) if (!file.startsWith("schemas/")) expect(after.get(file), file).toBe(before.get(file));
    expect(existsSync(path.join(dir, "src/handlers/new.ts"))).toBe(false);
  });

  it("--check lists missing, changed and extra files and exits 1 until the output is fresh", async () => {
    const dir = await project();
    const fresh = await mcpgen(dir, "build", "--check");
    expect(fresh.code).toBe(1);
    expect(fresh.stderr).toContain("missing  generated/registry.gen.ts");
    expect(fresh.stderr).toContain("missing handler  src/handlers/search.ts");
    expect(existsSync(path.join(dir, "generated"))).toBe(false);

    await mcpgen(dir, "build");
    const ok = await mcpgen(dir, "build", "--check");
    expect(ok.code).toBe(0);
    expect(ok.stderr).toMatch(/2 tools, output is up to date/);

    await writeSchemas(dir, { "tools/search.json": tool({ extra: { type: "number" } }) });
    await writeFile(path.join(dir, "generated/stray.gen.ts"), "// Generated by mcpgen\n");
    await rm(path.join(dir, "generated/validators/fetch.gen.js"));
    const stale = await mcpgen(dir, "build", "--check");
    expect(stale.code).toBe(1);
    expect(stale.stderr.split("\n")).toEqual(
      expect.arrayContaining([
        "  changed  generated/types.gen.ts",
        "  changed  generated/registry.gen.ts",
        "  changed  generated/validators/search.gen.js",
        "  missing  generated/validators/fetch.gen.js",
        "  extra    generated/stray.gen.ts",
      ]),
    );
    expect(await readFile(path.join(dir, "generated/stray.gen.ts"), "utf8")).toBe("// Generated by mcpgen\n");
  });

  it("removes stale generated files when a tool goes away", async () => {
    const dir = await project();
    await mcpgen(dir, "build");
    await rm(path.join(dir, "schemas/tools/fetch.json"));
    await writeSchemas(dir, { "annotations.json": { tools: { search: "readOnly" } } });
    const result = await mcpgen(dir, "build");
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/1 tool → generated\/ \(\d+ written, 2 removed, [\d.]+ s, 1 warning\)/);
    expect(result.stderr).toContain(
      "src/handlers/fetch.ts#: warning: left-behind handler: no tool, resource or prompt in the schemas uses it any more (and tsc fails on its missing handler type); delete it if you no longer need it\n",
    );
    expect([...(await readTree(path.join(dir, "generated"))).keys()]).toEqual([
      "handlers.gen.ts",
      "registry.gen.ts",
      "server.gen.ts",
      "types.gen.ts",
      "validators/search.gen.d.ts",
      "validators/search.gen.js",
    ]);
    expect(existsSync(path.join(dir, "src/handlers/fetch.ts"))).toBe(true); // the user's file stays
  });

  it("names left-behind handler files: a warning when building, a failure with --check, never deleted", async () => {
    const dir = await project({ search: tool(), fetch: tool() });
    await writeSchemas(dir, { "prompts/hello.json": { arguments: [{ name: "who" }] }, "resources/readme.json": { uri: "docs://readme" } });
    expect((await mcpgen(dir, "build")).code).toBe(0);
    await writeFile(path.join(dir, "src/handlers/util.ts"), "export const helper = 1;\n"); // not a handler: left alone
    await rm(path.join(dir, "schemas/tools/fetch.json"));
    await rm(path.join(dir, "schemas/prompts"), { recursive: true });
    await rm(path.join(dir, "schemas/resources"), { recursive: true });
    await writeSchemas(dir, { "annotations.json": { tools: { search: "readOnly" } } });
    const leftBehind = ["src/handlers/fetch.ts", "src/handlers/prompts/hello.ts", "src/handlers/resources/readme.ts"];

    const check = await mcpgen(dir, "build", "--check");
    expect(check.code).toBe(1);
    for (const file of leftBehind)
      expect(check.stderr).toContain(`  left-behind handler  ${file} (no tool, resource or prompt uses it: delete it if you no longer need it)\n`);

    for (const run of ["first build", "no-op build"]) {
      const built = await mcpgen(dir, "build");
      expect(built.code, run).toBe(0);
      const warnings = built.stderr.split("\n").filter((line) => line.includes(": warning: "));
      expect(warnings.map((line) => line.slice(0, line.indexOf("#"))), run).toEqual(leftBehind);
    }
    for (const file of [...leftBehind, "src/handlers/util.ts"]) expect(existsSync(path.join(dir, file)), file).toBe(true);
    expect((await mcpgen(dir, "build", "--check")).code).toBe(1);

    for (const file of leftBehind) await rm(path.join(dir, file));
    const clean = await mcpgen(dir, "build", "--check");
    expect(clean.code, clean.stderr).toBe(0);
    expect((await mcpgen(dir, "build")).stderr).not.toContain("warning");
  });

  it("removes folders left empty when the last prompt or resource template goes away", async () => {
    const dir = await project({ search: tool() });
    await writeSchemas(dir, { "prompts/hello.json": { arguments: [{ name: "who" }] } });
    expect((await mcpgen(dir, "build")).stderr).toMatch(/^mcpgen: 1 tool, 1 prompt → generated\//);
    expect(existsSync(path.join(dir, "generated/validators/prompts/hello.gen.js"))).toBe(true);
    await rm(path.join(dir, "schemas/prompts"), { recursive: true });
    const second = await mcpgen(dir, "build");
    expect(second.code, second.stderr).toBe(0);
    expect(existsSync(path.join(dir, "generated/validators/prompts"))).toBe(false);
    await rm(path.join(dir, "src/handlers/prompts/hello.ts")); // left behind (see below), and deleted by its owner
    expect((await mcpgen(dir, "build", "--check")).code).toBe(0);
  });

  it("refuses to replace an output folder holding files it did not generate", async () => {
    const dir = await project();
    await mkdir(path.join(dir, "src"), { recursive: true });
    await writeFile(path.join(dir, "src/app.ts"), "export {};\n");
    const result = await mcpgen(dir, "build", "--out", "src", "--handlers", "handlers");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "mcpgen: src/app.ts was not generated by mcpgen, and mcpgen replaces src/ whole: move that file or choose another --out\n",
    );
    expect(await readFile(path.join(dir, "src/app.ts"), "utf8")).toBe("export {};\n");
    const nested = await mcpgen(dir, "build", "--out", ".");
    expect(nested.code).toBe(1);
    expect(nested.stderr).toContain("would replace the schemas folder");
  });

  it("checks every destination before writing anything: --out and --handlers must be folders", async () => {
    const dir = await project();
    await writeFile(path.join(dir, "afile"), "mine\n");
    await mkdir(path.join(dir, "elsewhere"));
    await mkdir(path.join(dir, "linked"));
    await symlink(path.join(dir, "elsewhere"), path.join(dir, "linked/inner"));
    await mkdir(path.join(dir, "handlers/search.ts"), { recursive: true });
    const cases: [string[], string][] = [
      [["--out", "afile"], "mcpgen: --out afile is not a folder: choose a folder for the generated files"],
      [["--out", "afile/gen"], "mcpgen: --out afile/gen cannot be made: afile is not a folder"],
      [["--out", "linked"], "mcpgen: linked/inner is a symbolic link, which mcpgen did not generate, and mcpgen replaces its output folder whole: move it or choose another --out"],
      [["--handlers", "afile"], "mcpgen: --handlers afile is not a folder, where handler files belong: choose another --handlers or move it"],
      [["--handlers", "afile/sub"], "mcpgen: afile is not a folder, where handler files belong: choose another --handlers or move it"],
      [["--handlers", "handlers"], "mcpgen: handlers/search.ts is not a file, where a handler file belongs: move it"],
    ];
    for (const [args, message] of cases) {
      for (const check of [[], ["--check"]]) {
        const result = await mcpgen(dir, "build", ...args, ...check);
        expect(result.code, args.join(" ")).toBe(1);
        expect(result.stderr, args.join(" ")).toBe(message + "\n");
      }
    }
    // Nothing was written anywhere: no generated/ (not even half of one), no handler stubs.
    expect(existsSync(path.join(dir, "generated"))).toBe(false);
    expect(existsSync(path.join(dir, "src"))).toBe(false);
    expect((await readTree(path.join(dir, "linked"))).size).toBe(0);
    expect(await readFile(path.join(dir, "afile"), "utf8")).toBe("mine\n");
  });

  it("reports an unexpected exception in one line and exits 3", async () => {
    const dir = await project();
    // A file system that fails in a way no check foresees.
    const preload = `data:text/javascript,${encodeURIComponent(
      'import fs from "node:fs"; import { syncBuiltinESMExports } from "node:module"; fs.readdirSync = () => { throw new Error("the disk is on fire"); }; syncBuiltinESMExports();',
    )}`;
    const result = await promisify(execFile)(process.execPath, ["--import", preload, BIN, "build"], { cwd: dir, timeout: 30_000 }).then(
      () => ({ code: 0, stderr: "" }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toBe("mcpgen: internal error, a bug in mcpgen (please report it; MCPGEN_DEBUG=1 shows where): Error: the disk is on fire\n");
  });

  it("honours --out and --handlers, with import paths between them", async () => {
    const dir = await project({ search: tool() });
    const result = await mcpgen(dir, "build", "schemas", "--out", "lib/gen", "--handlers", "app/tools");
    expect(result.code).toBe(0);
    expect(await readFile(path.join(dir, "lib/gen/registry.gen.ts"), "utf8")).toContain('import("../../app/tools/search.js")');
    expect(await readFile(path.join(dir, "app/tools/search.ts"), "utf8")).toContain('from "../../lib/gen/handlers.gen.js"');
  });

  it("keeps the repository's own generated/ up to date", async () => {
    const result = await mcpgen(REPO, "build", "schemas", "--check", "--no-cache");
    expect(result.stderr).toMatch(/output is up to date/);
    expect(result.code).toBe(0);
  });

  it("also accepts appended whitespace-only changes without rewriting output", async () => {
    const dir = await project({ search: tool() });
    await mcpgen(dir, "build");
    await appendFile(path.join(dir, "schemas/tools/search.json"), "\n\n");
    expect((await mcpgen(dir, "build")).stderr).toMatch(/unchanged/);
  });

  it("builds a copy of the example schemas anywhere", async () => {
    const dir = await tempProject();
    await cp(path.join(REPO, "schemas"), path.join(dir, "schemas"), { recursive: true });
    const result = await mcpgen(dir, "build");
    expect(result.code).toBe(0);
    expect(await readFile(path.join(dir, "generated/registry.gen.ts"), "utf8")).toBe(await readFile(path.join(REPO, "generated/registry.gen.ts"), "utf8"));
  });
});
