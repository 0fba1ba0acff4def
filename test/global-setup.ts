// Says once per test run which oracle checks the server's messages, and compiles the repository's example
// server (generated/ + src/handlers/) once per test run, for the end-to-end tests that drive it with the
// official clients.
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";
import path from "node:path";
import { describeOracle } from "./runtime/helpers/spec.js";

export const EXAMPLE_BUILD = path.resolve(import.meta.dirname, "../.tmp/example-build");

export default function setup(): void {
  console.log(describeOracle());
  rmSync(EXAMPLE_BUILD, { recursive: true, force: true });
  const tsc = path.resolve(import.meta.dirname, "../node_modules/typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.example.json", "--outDir", EXAMPLE_BUILD], {
    cwd: path.resolve(import.meta.dirname, ".."),
    stdio: "inherit",
  });
}
