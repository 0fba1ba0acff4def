import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { REPO } from "../compiler/helpers.js";

export const BIN = path.join(REPO, "bin/mcpgen.js");

/** Runs the real `mcpgen` binary; never throws, returns the exit code and both streams. */
export async function mcpgen(cwd: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(process.execPath, [BIN, ...args], { cwd, timeout: 30_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}
