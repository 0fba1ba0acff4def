/**
 * The `mcpgen` command line: `build`, `init`, `bundle`, `server-json`, `docs`, `lint`, `diff`, `dev`, `test` and `import`.
 * Messages go to stderr; exit 0 ok, 1 problems, 2 usage, 3 an internal error (a bug in mcpgen: one line, the stack only with MCPGEN_DEBUG set).
 */
import path from "node:path";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { build, DEFAULTS, DiagnosticError, formatDiagnostic, OutputError, VERSION, type BuildResult, type Counts } from "../compiler/index.js";
import { rel } from "../compiler/config.js";
import { SHIP_DEFAULTS as SHIP } from "../ship/config.js";
import { withFolders } from "./folders.js";
import { importCommand } from "../import/cli.js";
import { collectProfile, PROFILE_HELP, registerLint, runLint } from "../lint/cli.js";
import { registerDiff } from "../diff/cli.js";
import { testCommand } from "../contract/command.js";
import { devCommand } from "../dev/command.js";

const say = (line: string) => process.stderr.write(line + "\n");

/** The exit code of an unexpected exception, apart from 1 (problems in the input) and 2 (usage). */
export const INTERNAL_ERROR = 3;

export function program(): Command {
  const cli = new Command("mcpgen")
    .description("Schema-first code generator for Model Context Protocol servers")
    .version(VERSION, "-v, --version")
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s), writeOut: (s) => process.stdout.write(s) });

  withFolders(cli.command("build").description("compile a schemas folder into types, validators, a registry, a server entry and handler stubs"))
    .option("-c, --check", "write nothing; exit 1 if the output folder or a handler file is missing or stale")
    .option("--no-cache", "recompile everything (the cache lives in node_modules/.cache/mcpgen)")
    .option("--client", "also write client.gen.ts, a typed client (one method per tool, prompt and resource) over the official SDK's Client; needs @modelcontextprotocol/sdk")
    .option("-j, --jobs <n>", "compile threads (default: one per CPU but one, at most 4, for 200+ tools and types to compile)", parseJobs)
    .addOption(new Option("-q, --quiet", "print only problems"))
    .option("-p, --profile <name>", `${PROFILE_HELP}; errors stop the build before anything is written`, collectProfile)
    .action(async (schemas: string, opts: { out: string; handlers: string; check?: boolean; cache: boolean; jobs?: number; quiet?: boolean; profile?: Parameters<typeof runLint>[1]; client?: boolean }) => {
      const started = performance.now();
      if (opts.profile && (await runLint(schemas, opts.profile, say, opts.quiet ?? false))) {
        say("mcpgen: lint errors; nothing was written");
        process.exitCode = 1;
        return;
      }
      const result = await build({
        schemas,
        out: opts.out,
        handlers: opts.handlers,
        check: opts.check ?? false,
        cache: opts.cache,
        ...(opts.jobs !== undefined && { jobs: opts.jobs }),
        ...(opts.client && { client: true }),
      });
      report(result, (performance.now() - started) / 1000, opts.quiet ?? false);
      if (result.mode === "check" && !result.upToDate) process.exitCode = 1;
    });

  cli
    .command("init")
    .description("scaffold a new server package, publishable as it is: package.json (bin, files, prepack, mcpName), tsconfig, schemas/ with an example tool, its handler")
    .argument("<dir>", "folder to create (must not exist or be empty)")
    .option("-n, --name <name>", "package and server name, a valid npm package name (default: the folder's name)")
    .option("--mcp-name <name>", "the MCP Registry name (package.json mcpName), reverse-DNS namespace/name (default: io.github.<scope or your-github-user>/<name>)")
    .option("--runtime <spec>", "the new package.json's dependency on @mcpgen/runtime (default: a tarball of this installation's runtime in vendor/)")
    .option("--mcpgen <spec>", "the new package.json's devDependency on mcpgen (default: a tarball of this installation in vendor/)")
    .action(async (dir: string, opts: { name?: string; mcpName?: string; runtime?: string; mcpgen?: string }) => {
      // Loaded here: `build` never needs the scaffold or its templates.
      const { init, shellQuote } = await import("../init/index.js");
      const created = await init(
        dir,
        {
          ...(opts.name === undefined ? {} : { name: opts.name }),
          ...(opts.mcpName === undefined ? {} : { mcpName: opts.mcpName }),
          ...(opts.runtime === undefined ? {} : { runtime: opts.runtime }),
          ...(opts.mcpgen === undefined ? {} : { mcpgen: opts.mcpgen }),
        },
        (message) => say(`mcpgen: ${message}`),
      );
      const shown = path.relative(process.cwd(), created.dir) || ".";
      say(`mcpgen: created ${created.name} in ${shown}/ (${created.files.length} files)`);
      for (const f of created.files) say(`  ${f}`);
      say(`next: cd ${shellQuote(shown)} && npm install && npm run build && npm start`);
    });
  cli
    .command("bundle")
    .description("pack the compiled server into an MCP Bundle (.mcpb): manifest.json and the server bundled, started from one file")
    .argument("[schemas]", "the schemas folder", SHIP.schemas)
    .option("-e, --entry <file>", `the compiled server entry, bundled with everything it imports (default: the package's bin, else ${SHIP.entry})`)
    .option("-p, --package <file>", "package.json with name, version, description, author and mcpgen.settings", SHIP.package)
    .option("-o, --out <file>", "the .mcpb to write; replaces only a bundle mcpgen made (default: <name>-<version>.mcpb)")
    .option("--icon <png>", "a PNG shipped as the bundle's icon")
    .addOption(new Option("-q, --quiet", "print only problems"))
    .action(async (schemas: string, opts: { entry?: string; package: string; out?: string; icon?: string; quiet?: boolean }) => {
      const started = performance.now();
      const { bundle } = await import("../ship/index.js");
      const result = await bundle({ schemas, ...(opts.entry !== undefined && { entry: opts.entry }), package: opts.package, ...(opts.out !== undefined && { out: opts.out }), ...(opts.icon !== undefined && { icon: opts.icon }) }, VERSION);
      if (opts.quiet) return;
      const m = result.manifest;
      say(
        `mcpgen: ${m.name} ${m.version} → ${shown(result.file)} (${kib(result.bytes)}; server ${kib(result.serverBytes)} in ${result.serverFiles} files from ${result.inputs} sources, ` +
          `${kib(result.startupBytes)} read at start-up; ` +
          `${m.tools?.length ?? 0} tools, ${m.prompts?.length ?? 0} prompts, ${Object.keys(m.user_config ?? {}).length} settings; ${seconds(started)})`,
      );
    });

  cli
    .command("docs")
    .description("write a catalog of the server (tools with their hints, inputs, outputs and examples; resources; prompts) as Markdown and a self-contained HTML page")
    .argument("[schemas]", "the schemas folder", DEFAULTS.schemas)
    .option("-o, --out <dir>", "the folder for index.md and index.html; replaces only files mcpgen docs wrote", "docs")
    .addOption(new Option("-f, --format <format>", "what to write").choices(["md", "html", "both"]).default("both"))
    .addOption(new Option("-q, --quiet", "print only problems"))
    .action(async (schemas: string, opts: { out: string; format: "md" | "html" | "both"; quiet?: boolean }) => {
      const started = performance.now();
      const { docs } = await import("../docs/index.js");
      const result = await docs({ schemas, out: opts.out, format: opts.format }, VERSION);
      for (const warning of result.warnings) say(formatDiagnostic(warning));
      if (opts.quiet) return;
      say(`mcpgen: docs → ${result.written.map(shown).join(", ")} (${seconds(started)})`);
    });

  cli
    .command("server-json")
    .description("write the MCP Registry's server.json for the npm package (name from package.json's mcpName)")
    .argument("[schemas]", "the schemas folder", SHIP.schemas)
    .option("-p, --package <file>", "package.json with mcpName, name, version and mcpgen.settings", SHIP.package)
    .option("-o, --out <file>", "the file to write; replaces only a server.json mcpgen wrote", SHIP.serverJson)
    .addOption(new Option("-q, --quiet", "print only problems"))
    .action(async (schemas: string, opts: { package: string; out: string; quiet?: boolean }) => {
      const started = performance.now();
      const { writeServerJson } = await import("../ship/index.js");
      const result = await writeServerJson({ schemas, package: opts.package, out: opts.out }, VERSION);
      if (opts.quiet) return;
      say(`mcpgen: ${result.doc.name} ${result.doc.version} → ${shown(result.file)} (npm package ${result.doc.packages[0]?.identifier}; ${seconds(started)})`);
      for (const note of result.notes) say(`  note: ${note}`);
    });
  registerLint(cli);
  registerDiff(cli);
  testCommand(cli);
  devCommand(cli);
  importCommand(cli);
  return cli;
}

const shown = (file: string) => path.relative(process.cwd(), file).split(path.sep).join("/");
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const seconds = (started: number) => `${((performance.now() - started) / 1000).toFixed(2)} s`;

function parseJobs(value: string): number {
  const jobs = Number(value);
  if (!/^\d+$/.test(value) || jobs < 1 || jobs > 64) throw new InvalidArgumentError("a whole number from 1 to 64");
  return jobs;
}

function report(result: BuildResult, seconds: number, quiet: boolean): void {
  const out = result.config.outDir;
  const time = `${seconds.toFixed(2)} s`;
  // Warnings are printed even with --quiet: they are problems, only not ones that stop the build.
  for (const warning of result.warnings) say(formatDiagnostic(warning));
  const warned = result.warnings.length ? `, ${count(result.warnings.length, "warning")}` : "";
  if (result.mode === "check") {
    if (result.upToDate) {
      if (!quiet) say(`mcpgen: ${summary(result.counts)}, output is up to date (${time}${warned})`);
      return;
    }
    say(`mcpgen: output is out of date; run \`mcpgen build\` and commit the result:`);
    for (const f of result.changed) say(`  changed  ${f}`);
    for (const f of result.missing) say(`  missing  ${f}`);
    for (const f of result.extra) say(`  extra    ${f}`);
    for (const f of result.missingHandlers) say(`  missing handler  ${f}`);
    for (const f of result.leftBehindHandlers) say(`  left-behind handler  ${f} (no tool, resource or prompt uses it: delete it if you no longer need it)`);
    return;
  }
  if (quiet) return;
  const changes = result.updated.length + result.removed.length;
  say(
    `mcpgen: ${summary(result.counts)} → ${rel(result.config, out)}/ ` +
      `(${changes ? `${result.updated.length} written, ${result.removed.length} removed` : "unchanged"}, ${time}${warned})`,
  );
  for (const f of result.createdHandlers) say(`  created handler ${f} (yours to edit)`);
}

/** "8 tools, 4 resources, 2 prompts" (kinds the server does not declare are left out, tools never). */
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

function summary({ tools, resources, prompts }: Counts): string {
  return [count(tools, "tool"), ...(resources ? [count(resources, "resource")] : []), ...(prompts ? [count(prompts, "prompt")] : [])].join(", ");
}

export async function main(argv: string[] = process.argv): Promise<void> {
  try {
    await program().parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode === 0 ? 0 : 2;
    } else if (error instanceof DiagnosticError) {
      say(error.message);
      const warnings = error.diagnostics.length - error.errors;
      say(`mcpgen: ${count(error.errors, "problem")}${warnings ? `, ${count(warnings, "warning")}` : ""}; nothing was written`);
      process.exitCode = 1;
    } else if (error instanceof OutputError) {
      say(`mcpgen: ${error.message}`);
      process.exitCode = 1;
    } else {
      // The last resort: every problem with the input or the options has a message of its own above.
      const detail = error instanceof Error ? (process.env.MCPGEN_DEBUG ? error.stack : `${error.name}: ${error.message.split("\n")[0]}`) : String(error);
      say(`mcpgen: internal error, a bug in mcpgen (please report it; MCPGEN_DEBUG=1 shows where): ${detail}`);
      process.exitCode = INTERNAL_ERROR;
    }
  }
}
