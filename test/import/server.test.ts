/**
 * `mcpgen import server` through the real CLI, on published servers run locally from npm over stdio: the
 * imported schemas folder builds, its handler stubs type-check, and serving it gives back the original
 * tools/list (deep-equal), prompts and resources (a resource renamed to fit mcpgen's names keeps its
 * original name as its title, and says so).
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
const WORK = path.join(ROOT, ".tmp/import-server");
const MCPGEN = path.join(ROOT, "bin/mcpgen.js");
const TSC = path.join(ROOT, "node_modules/typescript/bin/tsc");

afterAll(() => rmSync(WORK, { recursive: true, force: true }));

function entryOf(pkg: string): string {
  const dir = path.join(ROOT, "node_modules", pkg);
  const { bin } = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { bin: string | Record<string, string> };
  return path.join(dir, typeof bin === "string" ? bin : Object.values(bin)[0]!);
}

type Named = { name: string; title?: string | undefined };
type Listed = { tools: unknown[]; resources: Named[]; templates: Named[]; prompts: unknown[] };

async function list(command: string, args: string[]): Promise<Listed> {
  const client = new Client({ name: "mcpgen-test", version: "1" });
  await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
  try {
    const caps = client.getServerCapabilities() ?? {};
    return {
      tools: (await client.listTools()).tools,
      resources: caps.resources ? (await client.listResources()).resources : [],
      templates: caps.resources ? (await client.listResourceTemplates()).resourceTemplates : [],
      prompts: caps.prompts ? (await client.listPrompts()).prompts : [],
    };
  } finally {
    await client.close();
  }
}

/** A name as the importer makes it fit mcpgen's rule, with the original kept as the title. */
const fitted = <T extends Named>(entry: T): T =>
  /^[A-Za-z0-9_.-]{1,128}$/.test(entry.name) ? entry : { ...entry, name: entry.name.replace(/[^A-Za-z0-9_.-]/g, "_"), title: entry.title ?? entry.name };

const byName = <T extends { name: string }>(entries: T[]): T[] => [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

const SERVERS: [string, string, string[]][] = [
  ["server-memory", "@modelcontextprotocol/server-memory", []],
  ["server-everything", "@modelcontextprotocol/server-everything", []],
  ["server-filesystem", "@modelcontextprotocol/server-filesystem", ["{dir}"]],
];

describe("mcpgen import server", () => {
  it.each(SERVERS)("round-trips %s: the imported server lists the same tools, prompts and resources", async (name, pkg, extra) => {
    const dir = path.join(WORK, name);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const args = [entryOf(pkg), ...extra.map((a) => a.replace("{dir}", dir))];
    const original = await list(process.execPath, args);
    expect(original.tools.length).toBeGreaterThan(0);

    const imported = await run(process.execPath, [MCPGEN, "import", "server", "--out", "schemas", "-g", "generated", "-H", "handlers", "--", process.execPath, ...args], { cwd: dir });
    expect(imported.stderr).toMatch(new RegExp(`imported .*: ${original.tools.length} tools`));
    writeFileSync(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({ extends: path.join(ROOT, "tsconfig.base.json"), compilerOptions: { rootDir: ".", outDir: "build" }, include: ["generated", "handlers"] }),
    );
    await run(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd: dir }); // the stubs type-check against the generated contract

    // mcpgen lists every kind in name order; the entries themselves must be the same.
    const served = await list(process.execPath, [path.join(dir, "build/generated/server.gen.js")]);
    expect(served.tools).toEqual(byName(original.tools as { name: string }[]));
    expect(served.prompts).toEqual(byName(original.prompts as { name: string }[]));
    expect(served.resources).toEqual(byName(original.resources.map(fitted)));
    expect(served.templates).toEqual(byName(original.templates.map(fitted)));
    for (const renamed of [...original.resources, ...original.templates].filter((r) => fitted(r) !== r)) {
      expect(imported.stderr).toContain(`"${renamed.name}" is named "${fitted(renamed).name}"`);
    }
  }, 120_000);

  it("writes only into a new or empty folder, and needs a server to read", async () => {
    const dir = path.join(WORK, "refusals");
    mkdirSync(path.join(dir, "schemas"), { recursive: true });
    writeFileSync(path.join(dir, "schemas/mine.json"), "{}");
    const refused = await run(process.execPath, [MCPGEN, "import", "server", "--", process.execPath, entryOf("@modelcontextprotocol/server-memory")], { cwd: dir }).catch((e: { code: number; stderr: string }) => e);
    expect(refused).toMatchObject({ code: 1 });
    expect((refused as { stderr: string }).stderr).toMatch(/not empty; import writes only into a new or empty folder/);
    expect(readFileSync(path.join(dir, "schemas/mine.json"), "utf8")).toBe("{}");
    const usage = await run(process.execPath, [MCPGEN, "import", "server"], { cwd: dir }).catch((e: { code: number; stderr: string }) => e);
    expect(usage).toMatchObject({ code: 2 });
    expect((usage as { stderr: string }).stderr).toMatch(/give either --url <url> or `-- <command> \[args...\]`/);
  }, 60_000);
});
