// Says once per test run which oracle checks the server's messages, compiles the repository's example
// server (generated/ + src/handlers/) for the end-to-end tests that drive it with the official clients, and
// builds the runtime's fixture servers with mcpgen (schemas → generated/, then compiled) into .tmp/.
import { execFile } from "node:child_process";
import { cpSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { writeWideFixture } from "./runtime/fixture-schemas/wide.js";
import { describeOracle } from "./runtime/helpers/spec.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const TSC = path.join(ROOT, "node_modules/typescript/bin/tsc");
const run = promisify(execFile);

export const EXAMPLE_BUILD = path.join(ROOT, ".tmp/example-build");
/** `<name>/schemas`, `<name>/handlers`, `<name>/generated` and the compiled `<name>/build/`. */
export const RUNTIME_FIXTURES = path.join(ROOT, ".tmp/runtime-fixtures");

/** Builds a fixture server the way a user builds one: `mcpgen build`, then `tsc`. */
async function buildFixture(name: string, write: (dir: string) => void): Promise<void> {
  const dir = path.join(RUNTIME_FIXTURES, name);
  rmSync(dir, { recursive: true, force: true });
  write(dir);
  await run(process.execPath, [path.join(ROOT, "bin/mcpgen.js"), "build", "schemas", "--out", "generated", "--handlers", "handlers", "--quiet"], { cwd: dir });
  writeFileSync(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({ extends: path.join(ROOT, "tsconfig.base.json"), compilerOptions: { rootDir: ".", outDir: "build", allowJs: true }, include: ["generated", "handlers"] }),
  );
  await run(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd: dir });
}

export default async function setup(): Promise<void> {
  console.log(describeOracle());
  rmSync(EXAMPLE_BUILD, { recursive: true, force: true });
  await Promise.all([
    run(process.execPath, [TSC, "-p", "tsconfig.example.json", "--outDir", EXAMPLE_BUILD], { cwd: ROOT }),
    buildFixture("wide", writeWideFixture),
    ...["core", "proto-names", "cluster"].map((name) => buildFixture(name, (dir) => cpSync(path.join(ROOT, "test/runtime/fixture-schemas", name), dir, { recursive: true }))),
  ]);
}
