/** Shared by the shipping tests: the mcpgen and mcpb command lines, and a project around the example. */
import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { REPO } from "../compiler/helpers.js";

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(file: string, args: string[], cwd: string): Promise<Run> {
  return promisify(execFile)(process.execPath, [file, ...args], { cwd, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

export const mcpgen = (cwd: string, ...args: string[]) => run(path.join(REPO, "bin/mcpgen.js"), args, cwd);
/** The official MCP Bundle tool (@anthropic-ai/mcpb): `validate`, `unpack`, `info`, … */
export const mcpb = (cwd: string, ...args: string[]) => run(path.join(REPO, "node_modules/@anthropic-ai/mcpb/dist/cli/cli.js"), args, cwd);

/** The example's schemas and its server compiled by test/global-setup.ts. */
export const EXAMPLE_SCHEMAS = path.join(REPO, "schemas");
export const EXAMPLE_ENTRY = path.join(REPO, ".tmp/example-build/generated/server.gen.js");

/** A publishable package.json for the example server (the repository's own is mcpgen's). */
export function examplePackage(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: "@acme/tasks-mcp",
    version: "1.0.0",
    description: "Task tracker MCP server",
    mcpName: "io.github.acme/tasks",
    author: "Ada Lovelace <ada@example.com> (https://example.com/ada)",
    license: "MIT",
    repository: { type: "git", url: "git+https://github.com/acme/tasks-mcp.git" },
    keywords: ["tasks", "mcp"],
    mcpgen: {
      settings: {
        TASKS_API_KEY: { title: "API key", description: "Key for the task service.", required: true, secret: true },
        TASKS_PAGE: { type: "number", description: "Largest page of tasks.", default: 20, min: 1, max: 100 },
        TASKS_DIR: { type: "directory", description: "Where tasks are kept." },
      },
    },
    ...extra,
  };
}

export async function writeJson(file: string, value: unknown): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify(value, null, 2) + "\n");
}
