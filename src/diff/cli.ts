/** The `diff` command: what changed between two versions of a server's tools, and the semver bump it calls for. */
import type { Command } from "commander";
import { DiagnosticError, OutputError } from "../compiler/index.js";
import { InputError } from "../lint/input.js";
import { bump, diff, type Change } from "./compare.js";

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

/** Grouped by item: a heading per tool, prompt or resource, a line per change. */
export function formatChanges(changes: readonly Change[]): string[] {
  const lines: string[] = [];
  let group = "";
  for (const c of changes) {
    const heading = `${c.kind} ${c.name}`;
    if (heading !== group) lines.push((group = heading));
    lines.push(`  ${c.level.padEnd(10)} ${c.pointer ? `#${c.pointer}: ` : ""}${c.message} [${c.rule}]`);
  }
  const of = (level: Change["level"]) => changes.filter((c) => c.level === level).length;
  const suggested = bump(changes);
  lines.push(
    `mcpgen diff: ${count(of("breaking"), "breaking change")}, ${count(of("compatible"), "compatible change")}, ${count(of("patch"), "description change")}; ` +
      (suggested === "none" ? "no change" : `suggested version bump: ${suggested}`),
  );
  return lines;
}

async function side(input: string) {
  // Loaded here, not with the CLI: it runs git through child_process, which other commands do not load.
  const { readSide } = await import("./load.js");
  try {
    return await readSide(input);
  } catch (error) {
    if (error instanceof InputError) throw new OutputError(error.message);
    if (error instanceof DiagnosticError) throw new OutputError(`${input} has problems:\n${error.message}`);
    throw error;
  }
}

export function registerDiff(cli: Command): void {
  cli
    .command("diff")
    .description("classify the changes between two versions of a server's tools, prompts and resources; exit 1 on a breaking change")
    .argument("<old>", "a schemas folder, a saved tools/list JSON, or <rev>:<path> (e.g. v1.2.0:schemas) read from git")
    .argument("<new>", "the same kinds as <old>")
    .option("--json", "print the changes and the suggested bump as JSON")
    .option("--allow-breaking", "exit 0 even when a change is breaking")
    .action(async (oldInput: string, newInput: string, opts: { json?: boolean; allowBreaking?: boolean }) => {
      const [before, after] = [await side(oldInput), await side(newInput)];
      const changes = await diff(before, after);
      const out = opts.json ? [JSON.stringify({ bump: bump(changes), changes }, null, 2)] : formatChanges(changes);
      process.stdout.write(out.join("\n") + "\n");
      if (!opts.allowBreaking && changes.some((c) => c.level === "breaking")) process.exitCode = 1;
    });
}
