/**
 * Type-checks the project after each change: the project's own TypeScript (`tsc --noEmit -p
 * tsconfig.json`, incremental, its build info in mcpgen's cache folder) in a child process, so a slow check
 * never holds up a restart. A newer change cancels the check under way. Type errors are reported, never
 * fatal: the server runs without types (tsx strips them).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

export interface TypecheckReport {
  /** tsc's own lines (`src/handlers/add.ts(3,5): error TS2322: …`). */
  lines: string[];
  errors: number;
  ms: number;
}

export class Typechecker {
  private running: ChildProcess | undefined;
  private readonly tsc: string | undefined;
  readonly tsconfig: string;

  constructor(
    private readonly cwd: string,
    private readonly cacheDir: string | undefined,
  ) {
    this.tsconfig = path.join(cwd, "tsconfig.json");
    this.tsc = resolveTsc(cwd);
  }

  /** Why there is no type check (no tsconfig.json, no typescript), or undefined. */
  get unavailable(): string | undefined {
    if (!existsSync(this.tsconfig)) return "no tsconfig.json in the project";
    if (!this.tsc) return "typescript is not installed in the project";
    return undefined;
  }

  /** Starts a check (cancelling the one under way); resolves with its report, or undefined if cancelled. */
  run(): Promise<TypecheckReport | undefined> {
    this.cancel();
    if (this.unavailable) return Promise.resolve(undefined);
    const started = performance.now();
    const info = this.cacheDir ? ["--incremental", "--tsBuildInfoFile", path.join(this.cacheDir, "dev.tsbuildinfo")] : [];
    const proc = spawn(process.execPath, [this.tsc!, "--noEmit", "--pretty", "false", "-p", this.tsconfig, ...info], { cwd: this.cwd, stdio: ["ignore", "pipe", "pipe"] });
    this.running = proc;
    let out = "";
    proc.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    proc.stderr.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    return new Promise((resolve) => {
      proc.once("exit", (code, signal) => {
        if (this.running === proc) this.running = undefined;
        if (signal) return resolve(undefined);
        const lines = out.split("\n").filter((l) => l.trim() !== "");
        const errors = code === 0 ? 0 : Math.max(1, lines.filter((l) => /\berror TS\d+/.test(l)).length);
        resolve({ lines, errors, ms: performance.now() - started });
      });
    });
  }

  cancel(): void {
    this.running?.kill("SIGTERM");
    this.running = undefined;
  }
}

function resolveTsc(cwd: string): string | undefined {
  try {
    return createRequire(path.join(cwd, "package.json")).resolve("typescript/bin/tsc");
  } catch {
    return undefined;
  }
}
