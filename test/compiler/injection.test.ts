// Hostile text in every schema field that reaches generated code must arrive unchanged as data, never
// as code: compile the injection fixture's output and import it.
import { execFile } from "node:child_process";
import { cp, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { FIXTURES, readJson, REPO, tempProject } from "./helpers.js";

it("hostile names, titles and descriptions stay data in the compiled, imported registry", async () => {
  const dir = await tempProject(true);
  await cp(path.join(FIXTURES, "injection/expected"), dir, { recursive: true });
  await writeFile(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({
      extends: path.join(REPO, "tsconfig.base.json"),
      compilerOptions: { outDir: "dist", rootDir: ".", allowJs: true },
      include: ["generated", "src"],
    }),
  );
  const tsc = path.join(REPO, "node_modules/typescript/bin/tsc");
  await promisify(execFile)(process.execPath, [tsc, "-p", dir]).catch((e: { stdout: string }) => {
    throw new Error(e.stdout);
  });
  const script = `const { registry } = await import(${JSON.stringify(path.join(dir, "dist/generated/registry.gen.js"))}); console.log(JSON.stringify(registry));`;
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], { cwd: REPO });
  const registry = JSON.parse(stdout) as { server: Record<string, string>; instructions: string; tools: { wire: string }[] };
  // A tool's wire metadata is its JSON text, exactly as tools/list sends it.
  const wire = JSON.parse(registry.tools[0]!.wire) as Record<string, unknown>;
  const server = await readJson<Record<string, string>>(path.join(FIXTURES, "injection/schemas/server.json"));
  const tool = await readJson<Record<string, unknown>>(path.join(FIXTURES, "injection/schemas/tools/evil.json"));
  expect(registry.server.name).toBe(server.name);
  expect(registry.server.title).toBe(server.title);
  expect(registry.instructions).toBe(server.instructions);
  expect(wire.title).toBe(tool.title);
  expect(wire.description).toBe(tool.description);
  expect(wire._meta).toEqual(tool._meta);
  expect(wire.inputSchema).toEqual(tool.inputSchema);
  // The stub's comment is built so that the description cannot end it.
  expect(await readFile(path.join(dir, "src/handlers/evil.ts"), "utf8")).toContain("end *\\/ `tick`");
}, 60_000);
