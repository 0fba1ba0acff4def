/** `mcpgen dev`: the command line of the authoring loop (src/dev/index.ts, loaded when it runs). */
import { InvalidArgumentError, type Command } from "commander";
import { withFolders } from "../cli/folders.js";

/** Registers `dev` on the program (as `.command()`, so it inherits the program's output and exit settings). */
export function devCommand(cli: Command): Command {
  return withFolders(
    cli
      .command("dev")
      .description("watch the schemas and handlers: rebuild, restart the server, type-check, on every change; serve stdio (or HTTP) from one process that stays up"),
  )
    .option("--http <port>", "serve Streamable HTTP on http://127.0.0.1:<port>/mcp (0: a free port) instead of stdio", parsePort)
    .option("--no-typecheck", "do not run tsc --noEmit after each change")
    .addHelpText(
      "after",
      `
stdio: point the MCP client at \`mcpgen dev\` itself; after a restart it is sent notifications/<kind>/list_changed.
While a build is broken, every request is answered with a JSON-RPC error (-32000) naming the problem; a
request in flight when the server restarts gets an error saying so. Progress and diagnostics go to stderr.`,
    )
    .action(async (schemas: string, opts: { out: string; handlers: string; http?: number; typecheck: boolean }) => {
      const { dev } = await import("./index.js");
      const session = await dev(
        { schemas, out: opts.out, handlers: opts.handlers, typecheck: opts.typecheck, ...(opts.http !== undefined && { http: opts.http }) },
        { say: (line) => process.stderr.write(line + "\n"), stdin: process.stdin, stdout: process.stdout },
      );
      const stop = () => void session.stop();
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      await session.stopped;
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
    });
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError("a port number from 0 to 65535");
  return port;
}
