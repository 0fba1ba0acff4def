// The generated registry as people read it (one constant per entry) and as tsc checks it (each handler
// module against its tool's handler type, annotated or not).
import { execFile } from "node:child_process";
import { cp, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { build } from "mcpgen";
import type { Registry } from "@mcpgen/runtime";
import { Harness } from "../runtime/helpers/core.js";
import { buildFixture, FIXTURES, readJson, REPO, server, tempProject, writeSchemas } from "./helpers.js";

const run = promisify(execFile);
const TSC = path.join(REPO, "node_modules/typescript/bin/tsc");

/** Copies a fixture's expected output below the repository and runs tsc over it; returns tsc's output. */
async function compileFixture(feature: string, handlers: Record<string, string> = {}, emit = false): Promise<{ dir: string; ok: boolean; out: string }> {
  const dir = await tempProject(true);
  await cp(path.join(FIXTURES, feature, "expected"), dir, { recursive: true });
  for (const [file, code] of Object.entries(handlers)) await writeFile(path.join(dir, "src/handlers", file), code);
  await writeFile(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({
      extends: path.join(REPO, "tsconfig.base.json"),
      compilerOptions: { outDir: "dist", rootDir: ".", allowJs: true, noEmit: !emit },
      include: ["generated", "src"],
    }),
  );
  return run(process.execPath, [TSC, "-p", dir]).then(
    ({ stdout }) => ({ dir, ok: true, out: stdout }),
    (e: { stdout: string }) => ({ dir, ok: false, out: e.stdout }),
  );
}

describe("registry.gen.ts", () => {
  it("gives every tool its own constant on one line, so a description edit is a one-line diff naming the tool", async () => {
    const { dir } = await buildFixture("metadata");
    const file = path.join(dir, "generated/registry.gen.ts");
    const before = (await readFile(file, "utf8")).split("\n");
    const toolFile = path.join(dir, "schemas/tools/purge.json");
    const tool = await readJson<Record<string, unknown>>(toolFile);
    await writeFile(toolFile, JSON.stringify({ ...tool, description: `${String(tool.description)} Changed.` }));
    await build({ cwd: dir, cache: false });
    const after = (await readFile(file, "utf8")).split("\n");

    expect(after).toHaveLength(before.length);
    const changed = after.flatMap((line, i) => (line === before[i] ? [] : [i]));
    expect(changed).toHaveLength(1);
    expect(after[changed[0]!]).toMatch(/^const toolPurge = '\{"name":"purge",.*"description":"[^"]* Changed\.",/);
  });

  it("lists names that are Object.prototype members, __proto__ included, exactly as the schemas give them", async () => {
    const { dir, ok, out } = await compileFixture("protokeys", {}, true);
    expect(out).toBe("");
    expect(ok).toBe(true);
    const { registry } = (await import(pathToFileURL(path.join(dir, "dist/generated/registry.gen.js")).href)) as { registry: Registry };
    const tools = (await new Harness({ registry }).result("tools/list")).tools as Record<string, unknown>[];
    expect(tools.map((tool) => tool.name)).toEqual(["__proto__", "constructor", "hasOwnProperty", "toString", "valueOf"]);
    const schema = await readJson<{ inputSchema: { properties: Record<string, unknown> } }>(path.join(FIXTURES, "protokeys/schemas/tools/__proto__.json"));
    const properties = (tools[0]!.inputSchema as { properties: Record<string, unknown> }).properties;
    expect(Object.keys(properties)).toEqual(Object.keys(schema.inputSchema.properties));
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype); // "__proto__" stayed a key
  }, 120_000);

  it("fails to compile when a handler drifts from its tool's types, with or without the handler's annotation", async () => {
    const { out, ok } = await compileFixture("refs", {
      // Unannotated and right: the structured value with content of its own.
      "ship.ts": `import { structured } from "@mcpgen/runtime";
export default async function ship(input: { to: { street: string } }) {
  return structured({ trackingId: "T1" }, \`Shipped to \${input.to.street}\`);
}
`,
      // Unannotated, wrong input type (the label is a string).
      "plant.ts": `export default async (input: { label: number }) => ({ street: String(input.label), country: "NL" });
`,
      // Unannotated, wrong result for a tool without outputSchema (text, content blocks or a full result).
      "pay.ts": `export default async () => 42;
`,
    });
    expect(ok).toBe(false);
    const registry = (await readFile(path.join(FIXTURES, "refs/expected/generated/registry.gen.ts"), "utf8")).split("\n");
    const lineOf = (tool: string) => registry.findIndex((line) => line.includes(`import("../src/handlers/${tool}.js")`)) + 1;
    const errors = out.split("\n").filter((line) => /error TS/.test(line));
    expect(errors.map((line) => line.replace(/\(\d+,\d+\)/, (m) => m.split(",")[0] + ")"))).toEqual([
      expect.stringMatching(new RegExp(`(^|/)generated/registry\\.gen\\.ts\\(${lineOf("pay")}\\): error TS2322: .*PayHandler`)),
      expect.stringMatching(new RegExp(`(^|/)generated/registry\\.gen\\.ts\\(${lineOf("plant")}\\): error TS2322: .*PlantHandler`)),
    ]);
  }, 120_000);

  it("type-checks with 1,300 tools (one array literal of differently typed entries is too complex for tsc: TS2590)", async () => {
    const dir = await tempProject(true);
    const names = Array.from({ length: 1300 }, (_, i) => `tool_${String(i).padStart(4, "0")}`);
    // Each tool's input differs, so each handler type, and each entry's type, is a type of its own.
    const tool = (name: string) => ({ description: "A tool.", inputSchema: { type: "object", properties: { [name]: { type: "integer" } } } });
    await writeSchemas(dir, server(Object.fromEntries(names.map((name) => [name, tool(name)]))));
    await build({ cwd: dir, cache: false });
    await writeFile(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({ extends: path.join(REPO, "tsconfig.base.json"), compilerOptions: { noEmit: true, rootDir: "." }, include: ["generated/registry.gen.ts", "src"] }),
    );
    const { ok, out } = await run(process.execPath, [TSC, "-p", dir]).then(
      ({ stdout }) => ({ ok: true, out: stdout }),
      (e: { stdout: string }) => ({ ok: false, out: e.stdout }),
    );
    expect(out).toBe("");
    expect(ok).toBe(true);
  }, 180_000);
});
