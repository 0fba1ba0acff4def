/**
 * The `mcpgen import` command and its subcommands `server` and `openapi`: each writes a schemas folder
 * (into a new or empty folder only) and then runs the compiler's `build()` on it, which creates the
 * generated code and the handler stubs.
 */
import path from "node:path";
import { InvalidArgumentError, Option, type Command } from "commander";
import { build, DEFAULTS, DiagnosticError, OutputError, type BuildResult } from "../compiler/index.js";
import { writeSchemasFolder, type Imported } from "./output.js";

const say = (line: string) => process.stderr.write(line + "\n");

interface BuildFlags {
  out: string;
  generated: string;
  handlers: string;
  build: boolean;
  quiet?: boolean;
}

function parsePrefix(value: string): string {
  if (!/^[A-Z][A-Z0-9_]*$/.test(value)) throw new InvalidArgumentError("upper-case letters, digits and _, starting with a letter");
  return value;
}

function buildOptions(command: Command): Command {
  return command
    .option("-o, --out <dir>", "the schemas folder to write; it must not exist or be empty (no file of yours is ever replaced)", DEFAULTS.schemas)
    .option("-g, --generated <dir>", "where `mcpgen build` writes the generated code", DEFAULTS.out)
    .option("-H, --handlers <dir>", "where `mcpgen build` creates the handler stubs (existing files are never touched)", DEFAULTS.handlers)
    .option("--no-build", "write the schemas folder only")
    .addOption(new Option("-q, --quiet", "print only problems"));
}

async function finish(imported: Imported, opts: BuildFlags, what: string, started: number): Promise<BuildResult | undefined> {
  const written = await writeSchemasFolder(path.resolve(opts.out), imported.files);
  for (const note of imported.notes) say(`  note: ${note}`);
  const { tools, resources, templates, prompts, defs } = imported.counts;
  if (!opts.quiet)
    say(`mcpgen: imported ${what}: ${tools} tools, ${resources} resources, ${templates} resource templates, ${prompts} prompts, ${defs} defs → ${opts.out}/ (${written.length} files)`);
  if (!opts.build) return undefined;
  const result = await build({ schemas: opts.out, out: opts.generated, handlers: opts.handlers });
  if (!opts.quiet) say(`mcpgen: built → ${opts.generated}/, ${result.mode === "write" ? result.createdHandlers.length : 0} handler stubs in ${opts.handlers}/ (${((performance.now() - started) / 1000).toFixed(2)} s)`);
  return result;
}

export function importCommand(cli: Command): Command {
  const command = cli.command("import").description("write a schemas folder from an existing MCP server or an OpenAPI description, then build it");

  buildOptions(
    command
      .command("server")
      .description(
        "read an MCP server's tools, resources, resource templates and prompts (every page) and write them as a schemas folder; " +
          "stdio: `mcpgen import server [options] -- <command> [args...]`, Streamable HTTP: `--url <url>`",
      )
      .argument("[command...]", "the command that starts the server over stdio (after `--`)")
      .option("-u, --url <url>", "the server's Streamable HTTP endpoint"),
  ).action(async (argv: string[], opts: BuildFlags & { url?: string }, self: Command) => {
    const started = performance.now();
    const { readServer, toSchemas } = await import("./server.js");
    const [commandName, ...args] = argv;
    if ((opts.url === undefined) === (commandName === undefined)) self.error("mcpgen import server: give either --url <url> or `-- <command> [args...]`", { exitCode: 2 });
    const source = opts.url !== undefined ? { url: opts.url } : { command: commandName!, args };
    const listing = await readServer(source).catch((error: Error) => {
      throw new OutputError(`cannot read the server ${opts.url ?? argv.join(" ")}: ${error.message.split("\n")[0]}`);
    });
    await finish(toSchemas(listing), opts, `${String(listing.serverInfo.name)} ${String(listing.serverInfo.version)}`, started);
  });

  buildOptions(
    command
      .command("openapi")
      .description(
        "write one tool per operation of an OpenAPI 3.0 or 3.1 description (YAML or JSON, a file or an http(s) URL), " +
          "shared schemas as defs, and handlers that call the API with fetch (base URL and credentials from environment variables)",
      )
      .argument("<spec>", "the OpenAPI description: a file path or an http(s) URL")
      .option("-t, --tag <tags...>", "import only the operations with one of these tags (default: all operations)")
      .option("--env-prefix <PREFIX>", "prefix of the environment variables the handlers read, <PREFIX>_BASE_URL and one per security scheme (default: from info.title)", parsePrefix),
  ).action(async (spec: string, opts: BuildFlags & { tag?: string[]; envPrefix?: string }) => {
    const started = performance.now();
    const { readOpenApi, toSchemas } = await import("./openapi.js");
    const { writeHandlers, CLIENT_FILE } = await import("./openapi-handlers.js");
    const { api, diagnostics } = await readOpenApi(spec);
    if (!api) throw new DiagnosticError(diagnostics);
    const imported = toSchemas(api, spec, { tags: opts.tag, envPrefix: opts.envPrefix });
    const title = String((api.info as { title?: unknown } | undefined)?.title ?? spec);
    const result = await finish(imported, opts, `${title} (${imported.operations.size} operations)`, started);
    if (!result || result.mode !== "write") return;
    const created = new Set(result.createdHandlers.map((file) => path.resolve(result.config.cwd, file)));
    const calls = await writeHandlers(imported, path.resolve(opts.handlers), created);
    if (!opts.quiet) {
      say(`mcpgen: ${calls} handlers call the API through ${opts.handlers}/${CLIENT_FILE}; environment:`);
      for (const variable of imported.env) say(`  ${variable.name}: ${variable.description}`);
    }
  });

  return command;
}
