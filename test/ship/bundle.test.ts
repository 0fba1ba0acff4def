/**
 * `mcpgen bundle`: the .mcpb is accepted by the official MCP Bundle tool (@anthropic-ai/mcpb), and once
 * unpacked into an empty folder it runs with `node` exactly as its manifest says, serving the official
 * MCP client, starting from one file and loading the rest from the bundle on first use.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempProject } from "../compiler/helpers.js";
import { listeningUrl } from "../helpers/wait.js";
import { assertRuntimeBuilt } from "../runtime/helpers/e2e.js";
import { EXAMPLE_ENTRY, EXAMPLE_SCHEMAS, examplePackage, mcpb, mcpgen, writeJson } from "./helpers.js";

const LISTED = ["add", "create_task", "delete_task", "fetch_page_title", "get_task", "list_tasks", "update_task"];
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(24)]);
const outside: string[] = [];
/** `node --import` it: every module the process loads is reported on stderr as "[load] <url>". */
const REPORT_LOADS = fileURLToPath(new URL("../runtime/helpers/report-loads.mjs", import.meta.url));

/** The modules a bundled file imports statically (esbuild writes one import statement per line). */
const staticImports = (code: string): string[] => [...code.matchAll(/^import [^;]*?from "([^"]+)";$|^import "([^"]+)";$/gm)].map((m) => (m[1] ?? m[2]) as string);

/** A folder in the system temp dir with no node_modules anywhere above it: what the unpacked bundle gets. */
async function bareFolder(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "mcpgen-mcpb-"));
  outside.push(dir);
  for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) expect(existsSync(path.join(d, "node_modules")), d).toBe(false);
  return dir;
}

afterAll(async () => {
  await Promise.all(outside.map((d) => rm(d, { recursive: true, force: true })));
});

/** A project folder with the example package.json and an icon; `bundle` run there against the example. */
async function bundled(extraArgs: string[] = []): Promise<{ dir: string; file: string; stderr: string }> {
  const dir = await tempProject();
  await writeJson(path.join(dir, "package.json"), examplePackage());
  await writeFile(path.join(dir, "icon.png"), PNG);
  const result = await mcpgen(dir, "bundle", EXAMPLE_SCHEMAS, "--entry", EXAMPLE_ENTRY, "--icon", "icon.png", ...extraArgs);
  expect(result.stderr).toMatch(/^mcpgen: @acme\/tasks-mcp 1\.0\.0 → /);
  expect(result.code).toBe(0);
  expect(result.stdout).toBe("");
  return { dir, file: path.join(dir, "acme-tasks-mcp-1.0.0.mcpb"), stderr: result.stderr };
}

beforeAll(assertRuntimeBuilt);

describe("mcpgen bundle", () => {
  it("writes an .mcpb that the official mcpb tool unpacks and validates", async () => {
    const { dir, file, stderr } = await bundled();
    expect(stderr).toMatch(/acme-tasks-mcp-1\.0\.0\.mcpb \(\d+\.\d KiB; server \d+\.\d KiB in \d+ files from \d+ sources, \d+\.\d KiB read at start-up; 7 tools, 2 prompts, 3 settings; \d+\.\d\d s\)\n$/);
    const unpacked = await bareFolder();
    const unpack = await mcpb(dir, "unpack", file, unpacked);
    expect(unpack.code, unpack.stderr).toBe(0);
    const files = (await readdir(unpacked, { recursive: true })).sort();
    expect(files.filter((f) => !f.startsWith("server/lazy/"))).toEqual(["icon.png", "manifest.json", "server", "server/index.mjs", "server/lazy"]);
    // A tool's handler and validators, and the runtime's lazily loaded parts, are files of their own.
    expect(files.filter((f) => f.startsWith("server/lazy/")).length).toBeGreaterThan(15);
    for (const f of files.filter((f) => f.startsWith("server/lazy/"))) expect(f).toMatch(/^server\/lazy\/[\w.-]+\.mjs$/);

    const validated = await mcpb(unpacked, "validate", "manifest.json");
    expect(validated.stdout).toContain("Manifest schema validation passes!");
    expect(validated.stdout).not.toContain("ERROR");
    expect(validated.code).toBe(0);

    const manifest = JSON.parse(await readFile(path.join(unpacked, "manifest.json"), "utf8"));
    expect(manifest).toMatchObject({
      manifest_version: "0.2",
      name: "@acme/tasks-mcp",
      display_name: "Tasks (mcpgen example)",
      version: "1.0.0",
      description: "A small task tracker: list, read, create, update and delete tasks, plus a page-title fetcher.",
      author: { name: "Ada Lovelace", email: "ada@example.com", url: "https://example.com/ada" },
      repository: { type: "git", url: "https://github.com/acme/tasks-mcp" },
      icon: "icon.png",
      license: "MIT",
      keywords: ["tasks", "mcp"],
      server: {
        type: "node",
        entry_point: "server/index.mjs",
        mcp_config: {
          command: "node",
          args: ["${__dirname}/server/index.mjs"],
          env: { TASKS_API_KEY: "${user_config.tasks_api_key}", TASKS_PAGE: "${user_config.tasks_page}", TASKS_DIR: "${user_config.tasks_dir}" },
        },
      },
      user_config: {
        tasks_api_key: { type: "string", title: "API key", description: "Key for the task service.", required: true, sensitive: true },
        tasks_page: { type: "number", title: "TASKS_PAGE", description: "Largest page of tasks.", default: 20, min: 1, max: 100 },
        tasks_dir: { type: "directory", title: "TASKS_DIR", description: "Where tasks are kept." },
      },
    });
    // Listed tools only (server_stats is hidden), with the descriptions of the schemas.
    expect(manifest.tools.map((t: { name: string }) => t.name)).toEqual(LISTED);
    expect(manifest.tools[0]).toEqual({ name: "add", description: "Adds two numbers and returns their sum." });
    expect(manifest.prompts.map((p: { name: string; arguments: string[] }) => [p.name, p.arguments])).toEqual([
      ["plan_day", ["focus", "max_tasks"]],
      ["summarize_task", ["id"]],
    ]);
    expect(manifest.prompts[1].text).toBe("Embeds a task and asks for a one-paragraph summary.\n\nid: ${arguments.id}");

    // The validator is live: the same manifest without its author is refused.
    delete manifest.author;
    await writeFile(path.join(unpacked, "broken.json"), JSON.stringify(manifest));
    const refused = await mcpb(unpacked, "validate", "broken.json");
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toMatch(/author/);
  });

  it("runs unpacked in an empty folder with node alone, as mcp_config says, for the official client", async () => {
    const { dir, file } = await bundled();
    const unpacked = await bareFolder();
    expect((await mcpb(dir, "unpack", file, unpacked)).code).toBe(0);
    const { server } = JSON.parse(await readFile(path.join(unpacked, "manifest.json"), "utf8"));
    expect(server.mcp_config.command).toBe("node");
    // Start-up reads one file: the entry, the runtime's main module and the registry.
    expect(staticImports(await readFile(path.join(unpacked, server.entry_point), "utf8")).every((from) => from.startsWith("node:"))).toBe(true);
    const args = (server.mcp_config.args as string[]).map((a) => a.replaceAll("${__dirname}", unpacked));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["--import", REPORT_LOADS, ...args],
      cwd: unpacked,
      env: { PATH: process.env.PATH ?? "", TASKS_API_KEY: "k" },
      stderr: "pipe",
    });
    let loads = "";
    transport.stderr?.on("data", (chunk: Buffer) => (loads += chunk.toString()));
    const client = new Client({ name: "bundle-test", version: "1.0.0" });
    try {
      await client.connect(transport);
      expect(client.getServerVersion()).toMatchObject({ name: "mcpgen-example-tasks", version: "1.0.0" });
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(LISTED);
      // Handlers and validators load from the bundle on a tool's first call: a tool with formats and $defs.
      expect((await client.callTool({ name: "add", arguments: { a: 2, b: 40 } })).structuredContent).toEqual({ sum: 42 });
      const created = await client.callTool({ name: "create_task", arguments: { title: "Ship it", assignee: { name: "Ada", email: "ada@example.com" } } });
      expect(created.structuredContent).toMatchObject({ id: "T-2", title: "Ship it", status: "open" });
      const invalid = await client.callTool({ name: "create_task", arguments: { title: "x", assignee: { name: "Bob", email: "not-an-email" } } });
      expect(invalid.isError).toBe(true);
      expect((await client.readResource({ uri: "tasks://task/T-2" })).contents[0]).toMatchObject({ uri: "tasks://task/T-2", mimeType: "application/json" });
      expect((await client.getPrompt({ name: "summarize_task", arguments: { id: "T-2" } })).messages.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    // Every module the server loaded is a file of the bundle, the lazily loaded parts among them.
    const urls = [...loads.matchAll(/^\[load\] (file:\S+)$/gm)].map((m) => fileURLToPath(m[1] as string));
    expect(urls.filter((f) => !f.startsWith(`${unpacked}${path.sep}server${path.sep}`))).toEqual([]);
    expect(urls.filter((f) => f.includes(`${path.sep}lazy${path.sep}`)).length).toBeGreaterThan(3);
  });

  it("serves Streamable HTTP from the bundle, the transport loaded from its lazily loaded files", async () => {
    const { dir, file } = await bundled();
    const unpacked = await bareFolder();
    expect((await mcpb(dir, "unpack", file, unpacked)).code).toBe(0);
    const child = spawn(process.execPath, [path.join(unpacked, "server", "index.mjs"), "--http", "--port", "0"], { cwd: unpacked, env: { PATH: process.env.PATH ?? "", TASKS_API_KEY: "k" } });
    const client = new Client({ name: "bundle-test", version: "1.0.0" });
    try {
      const url = await listeningUrl(child);
      expect(new URL(url).hostname).toBe("127.0.0.1");
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      expect((await client.callTool({ name: "add", arguments: { a: 20, b: 22 } })).structuredContent).toEqual({ sum: 42 });
    } finally {
      await client.close();
      const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once("exit", resolve));
      child.kill();
      await exited;
    }
  });

  it("holds each module once: the runtime's classes, and a module both the entry and a handler import", async () => {
    // A custom entry that imports the add handler itself: the registry imports it too, lazily.
    const dir = await tempProject();
    await writeJson(path.join(dir, "package.json"), examplePackage());
    const entry = path.join(dir, "entry.mjs");
    const handler = path.join(path.dirname(path.dirname(EXAMPLE_ENTRY)), "src", "handlers", "add.js");
    await writeFile(entry, `import add from ${JSON.stringify(handler)};\nif (typeof add !== "function") throw new Error("no handler");\nawait import(${JSON.stringify(EXAMPLE_ENTRY)});\n`);
    for (const [entryFile, expectLazyIndex] of [[EXAMPLE_ENTRY, true], [entry, false]] as const) {
      const result = await mcpgen(dir, "bundle", EXAMPLE_SCHEMAS, "--entry", entryFile, "--out", "b.mcpb", "--quiet");
      expect(result, result.stderr).toMatchObject({ code: 0, stderr: "" });
      const unpacked = await bareFolder();
      expect((await mcpb(dir, "unpack", path.join(dir, "b.mcpb"), unpacked)).code).toBe(0);
      const files = (await readdir(path.join(unpacked, "server"), { recursive: true })).filter((f) => f.endsWith(".mjs"));
      const texts = await Promise.all(files.map((f) => readFile(path.join(unpacked, "server", f), "utf8")));
      const count = (needle: RegExp) => texts.reduce((n, text) => n + (text.match(needle)?.length ?? 0), 0);
      expect(count(/\bToolError = class\b/g)).toBe(1);
      expect(count(/sum: a \+ b/g)).toBe(1);
      // Lazily loaded parts import the runtime's main module from the entry file, when it holds it.
      expect(texts.some((text) => text.includes('from "../index.mjs"'))).toBe(expectLazyIndex);
      const transport = new StdioClientTransport({ command: process.execPath, args: [path.join(unpacked, "server", "index.mjs")], cwd: unpacked, env: { PATH: process.env.PATH ?? "", TASKS_API_KEY: "k" }, stderr: "pipe" });
      const client = new Client({ name: "bundle-test", version: "1.0.0" });
      try {
        await client.connect(transport);
        expect((await client.callTool({ name: "add", arguments: { a: 1, b: 2 } })).structuredContent).toEqual({ sum: 3 });
        const missing = await client.callTool({ name: "get_task", arguments: { id: "T-404" } });
        expect(missing.isError).toBe(true); // a ToolError the runtime recognizes: its own message, not an internal error
        expect(JSON.stringify(missing.content)).toContain("T-404");
      } finally {
        await client.close();
      }
    }
  });

  it("makes the same bytes twice, replaces its own bundle, and never a file it did not make", async () => {
    const { dir, file } = await bundled();
    const first = await readFile(file);
    const again = await mcpgen(dir, "bundle", EXAMPLE_SCHEMAS, "--entry", EXAMPLE_ENTRY, "--icon", "icon.png", "--quiet");
    expect(again).toMatchObject({ code: 0, stderr: "" });
    expect((await readFile(file)).equals(first)).toBe(true);

    const mine = path.join(dir, "mine.mcpb");
    await writeFile(mine, "not yours\n");
    const refused = await mcpgen(dir, "bundle", EXAMPLE_SCHEMAS, "--entry", EXAMPLE_ENTRY, "--out", "mine.mcpb");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe("mcpgen: mine.mcpb exists and was not written by mcpgen; nothing was written (move it away or choose another file with --out)\n");
    expect(await readFile(mine, "utf8")).toBe("not yours\n");
  });

  it("reports bad input as file#/pointer diagnostics, exits 1 and writes nothing", async () => {
    const dir = await tempProject();
    const { author: _, ...noAuthor } = examplePackage({
      mcpgen: {
        settings: {
          "API-KEY": { description: "Dash in the name." },
          TOKEN: { type: "number", secret: true, description: "A secret number." },
          LIMIT: { type: "string", default: 3, min: 1, description: "Bounds on a string." },
          EXTRA: { description: "Unknown field.", hidden: true },
          NOTHING: { title: "No description" },
        },
      },
    });
    await writeJson(path.join(dir, "package.json"), noAuthor);
    await writeFile(path.join(dir, "icon.png"), "GIF89a");
    const result = await mcpgen(dir, "bundle", EXAMPLE_SCHEMAS, "--entry", EXAMPLE_ENTRY, "--icon", "icon.png");
    expect(result.code).toBe(1);
    expect(result.stderr.split("\n")).toEqual([
      "icon.png#: is not a PNG file (an MCP Bundle's icon must be a PNG, 512×512 recommended)",
      'package.json#/author: missing: an MCP Bundle names its author, e.g. "author": "Ada Lovelace <ada@example.com> (https://example.com)"',
      'package.json#/mcpgen/settings/API-KEY: a setting is named after its environment variable: letters, digits and _, not starting with a digit',
      'package.json#/mcpgen/settings/EXTRA/hidden: unknown field "hidden" (known: title, description, type, required, secret, default, min, max)',
      "package.json#/mcpgen/settings/NOTHING: must have required property 'description'",
      "mcpgen: 5 problems; nothing was written",
      "",
    ]);

    // Once the settings are well-formed, the rules across their fields show.
    await writeJson(path.join(dir, "package.json"), {
      ...noAuthor,
      mcpgen: { settings: { TOKEN: { type: "number", secret: true, description: "x" }, LIMIT: { default: 3, min: 1, description: "x" }, limit: { description: "x" } } },
    });
    await writeFile(path.join(dir, "icon.png"), PNG);
    const again = await mcpgen(dir, "bundle", EXAMPLE_SCHEMAS, "--entry", EXAMPLE_ENTRY, "--icon", "icon.png");
    expect(again.code).toBe(1);
    expect(again.stderr.split("\n")).toEqual([
      'package.json#/author: missing: an MCP Bundle names its author, e.g. "author": "Ada Lovelace <ada@example.com> (https://example.com)"',
      "package.json#/mcpgen/settings/LIMIT/default: must be a string, as the setting is a string",
      "package.json#/mcpgen/settings/LIMIT/min: only a number setting has min, not a string",
      "package.json#/mcpgen/settings/TOKEN/secret: only a string setting can be secret, not a number",
      'package.json#/mcpgen/settings/limit: differs from "LIMIT" only in case; settings must differ in more than that',
      "mcpgen: 5 problems; nothing was written",
      "",
    ]);
    expect((await readdir(dir)).sort()).toEqual(["icon.png", "package.json"]);
  });

  it("says what to do when the compiled entry is missing", async () => {
    const dir = await tempProject();
    await writeJson(path.join(dir, "package.json"), examplePackage());
    const result = await mcpgen(dir, "bundle", EXAMPLE_SCHEMAS);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "mcpgen: the compiled server entry build/generated/server.gen.js does not exist: build the project first (mcpgen build, then tsc), or name it with --entry\n",
    );
    expect(await readdir(dir)).toEqual(["package.json"]);
  });
});
