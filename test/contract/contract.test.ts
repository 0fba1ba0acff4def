// End-to-end: `mcpgen test` through the real binary, on projects whose handlers pass and fail their examples.
import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { REPO, server, tempProject, writeSchemas } from "../compiler/helpers.js";

const BIN = path.join(REPO, "bin/mcpgen.js");

async function mcpgen(cwd: string, ...args: string[]): Promise<{ code: number; stderr: string }> {
  return promisify(execFile)(process.execPath, [BIN, ...args], { cwd, timeout: 60_000 }).then(
    ({ stderr }) => ({ code: 0, stderr }),
    (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
  );
}

const double = (examples: unknown[]) => ({
  description: "Doubles a number; negative numbers are refused.",
  inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
  outputSchema: { type: "object", properties: { value: { type: "number" } }, required: ["value"], additionalProperties: false },
  examples,
});

// 7 answers a value the outputSchema refuses; -1 is refused with a tool error.
const HANDLER = `import { ToolError } from "@mcpgen/runtime";
import type { DoubleHandler } from "../../generated/handlers.gen.js";
const handler: DoubleHandler = async ({ n }) => {
  if (n < 0) throw new ToolError("negative numbers are not allowed");
  if (n === 7) return { value: "fourteen" } as unknown as { value: number };
  return { value: n * 2 };
};
export default handler;
`;

/** A project (inside the repository, so that `@mcpgen/runtime` resolves) with the `double` tool. */
async function project(examples: unknown[]): Promise<string> {
  const dir = await tempProject(true);
  await writeSchemas(dir, server({ double: double(examples) }));
  await mkdir(path.join(dir, "src/handlers"), { recursive: true });
  await writeFile(path.join(dir, "src/handlers/double.ts"), HANDLER);
  return dir;
}

describe("mcpgen test", () => {
  it("passes when every example holds, isError examples included", async () => {
    const dir = await project([
      { description: "doubles", input: { n: 2 }, output: { value: 4 } },
      { input: { n: 0.5 } },
      { input: { n: -1 }, isError: true, error: "negative numbers" },
    ]);
    const { code, stderr } = await mcpgen(dir, "test");
    expect(stderr).toMatch(/^mcpgen: 3 examples, 3 passed, 0 failed \(\d+\.\d\d s\)$/m);
    expect(code).toBe(0);
  }, 60_000);

  it("reports each failing example at its pointer and exits 1", async () => {
    const dir = await project([
      { input: { n: 2 }, output: { value: 4 } },
      { input: { n: 3 }, output: { value: 7 } },
      { input: { n: 3 }, isError: true },
      { input: { n: -1 }, output: { value: -2 } },
      { input: { n: 7 } },
      { input: { n: -1 }, isError: true, error: "too small" },
    ]);
    const { code, stderr } = await mcpgen(dir, "test");
    const file = "schemas/tools/double.json";
    expect(stderr).toContain(`${file}#/examples/1: output differs at /value: expected 7, got 6`);
    expect(stderr).toContain(`${file}#/examples/2: expected an isError result, got a successful one: {"value":6}`);
    expect(stderr).toContain(`${file}#/examples/3: the tool answered with an error: negative numbers are not allowed`);
    expect(stderr).toMatch(new RegExp(`${file}#/examples/4: the tool answered with an error: .*value`));
    expect(stderr).toContain(`${file}#/examples/5: the error text does not contain "too small": negative numbers are not allowed`);
    expect(stderr).not.toContain("#/examples/0:");
    expect(stderr).toMatch(/^mcpgen: 6 examples, 1 passed, 5 failed /m);
    expect(code).toBe(1);
  }, 60_000);

  it("refuses an isError example with an output, and an error text without isError, before running anything", async () => {
    const dir = await project([
      { input: { n: -1 }, isError: true, output: { value: 1 } },
      { input: { n: 1 }, error: "nope" },
    ]);
    const { code, stderr } = await mcpgen(dir, "test");
    expect(stderr).toContain('schemas/tools/double.json#/examples/0/output: an "isError": true example has no output');
    expect(stderr).toContain('schemas/tools/double.json#/examples/1/error: example has an "error" text but is not "isError": true');
    expect(stderr).not.toMatch(/examples, \d+ passed/);
    expect(code).toBe(1);
  }, 60_000);

  it("says so when the server does not start, with what it printed, and exits 1", async () => {
    const dir = await tempProject(); // outside the repository: no package.json says "type": "module", no @mcpgen/runtime
    await writeSchemas(dir, server({ double: double([{ input: { n: 2 } }]) }));
    await mkdir(path.join(dir, "src/handlers"), { recursive: true });
    await writeFile(path.join(dir, "src/handlers/double.ts"), HANDLER);
    const { code, stderr } = await mcpgen(dir, "test");
    expect(stderr).toMatch(/^mcpgen: the server did not start: the server exited \(1\) before answering$/m);
    expect(stderr).toMatch(/^  server: .*Error/m);
    expect(code).toBe(1);
  }, 60_000);

  it("has help naming its options and the example format", async () => {
    const { code, stderr } = await promisify(execFile)(process.execPath, [BIN, "test", "--help"], { cwd: REPO }).then(
      ({ stdout }) => ({ code: 0, stderr: stdout }),
      (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
    );
    expect(code).toBe(0);
    for (const flag of ["--out <dir>", "--handlers <dir>", "--timeout <ms>", '"isError"?: true']) expect(stderr).toContain(flag);
  });
});
