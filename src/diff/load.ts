/**
 * Reads one side of a diff: a schemas folder, a saved tools/list JSON, or `<rev>:<path>`, a folder or file
 * as committed at a git revision (read with `git ls-tree` and `git show` into a temporary folder, which is
 * removed again).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { InputError, readListing, type Listing } from "../lint/input.js";

const git = (args: string[], cwd: string): Buffer => execFileSync("git", args, { cwd, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 256 * 1024 * 1024 });

export async function readSide(input: string, cwd = process.cwd()): Promise<Listing> {
  const ref = /^([^:]+):(.*)$/.exec(input);
  if (existsSync(path.resolve(cwd, input)) || !ref) return readListing(input, cwd);
  const [, rev, inside] = ref as unknown as [string, string, string];
  const where = inside || ".";
  let names: string[];
  try {
    names = git(["ls-tree", "-r", "-z", "--name-only", rev, "--", where], cwd).toString("utf8").split("\0").filter(Boolean);
  } catch (error) {
    const why = (error as { stderr?: Buffer }).stderr?.toString().trim().split("\n")[0] ?? (error as Error).message;
    throw new InputError(`${input}: not a path, and git cannot read it as <rev>:<path>: ${why}`);
  }
  if (!names.length) throw new InputError(`${input}: nothing at ${where} in ${rev}`);
  const scratch = mkdtempSync(path.join(tmpdir(), "mcpgen-diff-"));
  try {
    for (const name of names) {
      const target = path.join(scratch, name);
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, git(["show", `${rev}:./${name}`], cwd));
    }
    return await readListing(where, scratch, (file) => `${rev}:${file}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
