/** The `lint` command, and the `--profile` check `build` runs before it writes anything. */
import type { Command } from "commander";
import { InvalidArgumentError } from "commander";
import { OutputError } from "../compiler/index.js";
import { formatFinding, InputError, isProfile, lint, PROFILES, readListing, summaryLine, type Profile } from "./index.js";

/** Commander's collector for a repeatable `--profile`. */
export function collectProfile(value: string, previous: Profile[] = []): Profile[] {
  if (!isProfile(value)) throw new InvalidArgumentError(`one of ${PROFILES.join(", ")}`);
  return previous.includes(value) ? previous : [...previous, value];
}

export const PROFILE_HELP = `check against a client's or provider's limits (repeatable): ${PROFILES.join(", ")}`;

/** Lints `input` and prints the findings and a summary line; returns whether there were errors. */
export async function runLint(input: string, profiles: readonly Profile[], print: (line: string) => void, quiet = false): Promise<boolean> {
  let listing;
  try {
    listing = await readListing(input);
  } catch (error) {
    if (error instanceof InputError) throw new OutputError(error.message);
    throw error;
  }
  const findings = lint(listing, profiles);
  for (const f of findings) print(formatFinding(f));
  const failed = findings.some((f) => f.severity === "error");
  if (!quiet || findings.length) print(summaryLine(listing, profiles, findings));
  return failed;
}

export function registerLint(cli: Command): void {
  cli
    .command("lint")
    .description("check tools against what model providers and clients accept (rules and their sources: docs/lint.md)")
    .argument("[schemas]", "a schemas folder, or a saved tools/list result (JSON)", "schemas")
    .option("-p, --profile <name>", `${PROFILE_HELP} (default: portable)`, collectProfile)
    .action(async (input: string, opts: { profile?: Profile[] }) => {
      const failed = await runLint(input, opts.profile ?? ["portable"], (line) => process.stdout.write(line + "\n"));
      if (failed) process.exitCode = 1;
    });
}
