/**
 * The entry point of a generated server: `main(registry)` parses the command line, serves the registry
 * and exits cleanly on end of input or SIGTERM/SIGINT.
 */
import { Console } from "node:console";
import type { Registry } from "./registry.js";
import { createServer } from "./server.js";
import { serveStdio } from "./stdio.js";

export interface CliOptions {
  transport: "stdio";
  pageSize?: number;
}

export type ParsedArgs = { kind: "serve"; options: CliOptions } | { kind: "help" } | { kind: "error"; message: string };

export function usage(name: string): string {
  return `Usage: ${name} [options]

Serves the MCP server "${name}".

Options:
  --stdio          serve over stdin/stdout (default)
  --page-size <n>  tools per tools/list page (default 100)
  -h, --help       show this help
`;
}

export function parseArgs(argv: readonly string[]): ParsedArgs {
  const options: CliOptions = { transport: "stdio" };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    switch (flag) {
      case "-h":
      case "--help":
        return { kind: "help" };
      case "--stdio":
        if (inline !== undefined) return { kind: "error", message: "--stdio takes no value" };
        options.transport = "stdio";
        break;
      case "--page-size": {
        const value = inline ?? argv[++i];
        if (value === undefined) return { kind: "error", message: "--page-size needs a value" };
        if (!/^[1-9][0-9]*$/.test(value) || !Number.isSafeInteger(Number(value))) {
          return { kind: "error", message: `--page-size must be a positive integer, got "${value}"` };
        }
        options.pageSize = Number(value);
        break;
      }
      default:
        return { kind: "error", message: arg.startsWith("-") ? `unknown option ${flag}` : `unexpected argument "${arg}"` };
    }
  }
  return { kind: "serve", options };
}

/**
 * Runs a server for `registry`. Exit codes: 0 after a clean shutdown or `--help`, 2 for a bad command
 * line. Resolves when the server has stopped (the process then exits, even if a handler that ignored
 * cancellation still holds the event loop).
 */
export async function main(registry: Registry, argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const name = registry.server.name;
  const parsed = parseArgs(argv);
  if (parsed.kind === "help") {
    process.stdout.write(usage(name));
    return;
  }
  if (parsed.kind === "error") {
    process.stderr.write(`${name}: ${parsed.message}\nRun "${name} --help" for the options.\n`);
    process.exitCode = 2;
    return;
  }

  keepConsoleOffStdout();
  process.on("unhandledRejection", (reason) => console.error("[mcpgen] unhandled rejection in a handler:", reason));
  const server = createServer(registry, parsed.options.pageSize === undefined ? {} : { pageSize: parsed.options.pageSize });
  const session = serveStdio(server);
  const stop = (): void => void session.close();
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  await session.closed;
  process.exit(0);
}

/** stdout carries protocol messages only: what handlers print with console.log/info/debug goes to stderr. */
function keepConsoleOffStdout(): void {
  const toStderr = new Console({ stdout: process.stderr, stderr: process.stderr });
  const target = console as unknown as Record<string, unknown>;
  for (const method of ["log", "info", "debug", "dir", "dirxml", "table", "group", "groupCollapsed", "groupEnd", "count", "countReset", "time", "timeEnd", "timeLog"] as const) {
    target[method] = toStderr[method].bind(toStderr);
  }
}
