/** `mcpgen test`: the command line of the contract tests (src/contract/index.ts, loaded when it runs). */
import { InvalidArgumentError, type Command } from "commander";
import { withFolders } from "../cli/folders.js";

const say = (line: string) => process.stderr.write(line + "\n");

/** Registers `test` on the program (as `.command()`, so it inherits the program's output and exit settings). */
export function testCommand(cli: Command): Command {
  return withFolders(
    cli
      .command("test")
      .description("run every tool's examples against the real handlers: input accepted, output equal to `output` and valid against outputSchema, `isError` examples end in an error"),
    "output folder (built first, as by `mcpgen build`)",
    "handler folder",
  )
    .option("-t, --timeout <ms>", "time limit of one call", parseMs, 10_000)
    .option("--logs", "show what the server prints on stderr (handler logs)")
    .addHelpText(
      "after",
      `
An example is { "input": …, "output"?: …, "isError"?: true, "error"?: "text the error contains", "description"?: … }.
Prints every failure as file#/examples/<i>: message and a summary; exits 1 if any example failed.`,
    )
    .action(async (schemas: string, opts: { out: string; handlers: string; timeout: number; logs?: boolean }) => {
      const started = performance.now();
      const { runExamples, ServerStartError } = await import("./index.js");
      const result = await runExamples({
        schemas,
        out: opts.out,
        handlers: opts.handlers,
        timeoutMs: opts.timeout,
        ...(opts.logs && { onServerLog: (line: string) => say(`  server: ${line}`) }),
      }).catch((error: unknown) => {
        if (!(error instanceof ServerStartError)) throw error;
        say(`mcpgen: ${error.message}`);
        process.exitCode = 1;
        return undefined;
      });
      if (!result) return;
      for (const outcome of result.outcomes) for (const problem of outcome.problems) say(`${outcome.at}: ${problem}`);
      const seconds = ((performance.now() - started) / 1000).toFixed(2);
      const total = result.outcomes.length;
      say(`mcpgen: ${total} example${total === 1 ? "" : "s"}, ${result.passed} passed, ${result.failed} failed (${seconds} s)`);
      if (result.failed) process.exitCode = 1;
    });
}

function parseMs(value: string): number {
  const ms = Number(value);
  if (!/^\d+$/.test(value) || ms < 1) throw new InvalidArgumentError("a whole number of milliseconds");
  return ms;
}
