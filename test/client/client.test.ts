// The typed client (`mcpgen build --client` → client.gen.ts): its golden output for the example, the opt-in
// (no client and no SDK import without it), a type-level test (tsc refuses wrong arguments and wrong uses of
// a typed result), and the example built with the client, compiled, served over stdio and called through it.
// Update the golden with `npx vitest run test/client/client.test.ts -u`.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { build } from "mcpgen";
import { REPO } from "../compiler/helpers.js";

const run = promisify(execFile);
const TSC = path.join(REPO, "node_modules/typescript/bin/tsc");
let dir: string;

/** tsc over the project, or over one more file; its error lines as `file(line): TScode`. */
async function tsc(project: string): Promise<{ ok: boolean; errors: string[] }> {
  return run(process.execPath, [TSC, "-p", project], { cwd: dir, timeout: 120_000 }).then(
    () => ({ ok: true, errors: [] }),
    (e: { stdout: string }) => ({ ok: false, errors: [...e.stdout.matchAll(/^(\S+)\((\d+),\d+\): error (TS\d+)/gm)].map((m) => `${m[1]}(${m[2]}): ${m[3]}`) }),
  );
}

beforeAll(async () => {
  // Inside the repository, so that the generated code finds @mcpgen/runtime and the SDK in its node_modules.
  dir = await mkdtemp(path.join(REPO, ".tmp/client-"));
  await cp(path.join(REPO, "src/handlers"), path.join(dir, "src/handlers"), { recursive: true });
  const tsconfig = (include: string[]) => ({
    extends: path.join(REPO, "tsconfig.base.json"),
    compilerOptions: { rootDir: ".", outDir: "build", allowJs: true },
    include,
  });
  await writeFile(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig(["generated", "src/handlers", "use.ts"])));
  await writeFile(path.join(dir, "tsconfig.wrong.json"), JSON.stringify({ ...tsconfig(["wrong.ts"]), compilerOptions: { noEmit: true } }));
}, 60_000);
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("mcpgen build --client", () => {
  it("writes client.gen.ts only when asked, and the golden output for the example", async () => {
    const without = await build({ cwd: dir, schemas: path.join(REPO, "schemas") });
    expect(without.mode === "write" && without.updated).not.toContain("generated/client.gen.ts");
    expect(existsSync(path.join(dir, "generated/client.gen.ts"))).toBe(false);
    // Nothing else the build writes needs the SDK.
    for (const file of ["registry.gen.ts", "server.gen.ts", "handlers.gen.ts", "types.gen.ts"])
      expect(await readFile(path.join(dir, "generated", file), "utf8")).not.toContain("@modelcontextprotocol/sdk");
    // The option is part of the build's input: a build that asks for the client after one that did not writes it.
    const withClient = await build({ cwd: dir, schemas: path.join(REPO, "schemas"), client: true });
    expect(withClient.mode === "write" && withClient.updated).toEqual(["generated/client.gen.ts"]);
    // The types beside it, so that the golden client type-checks where it is (tsconfig.json includes test/).
    for (const file of ["client.gen.ts", "types.gen.ts"])
      await expect(await readFile(path.join(dir, "generated", file), "utf8")).toMatchFileSnapshot(path.join(REPO, "test/client/expected", file));
    const check = await build({ cwd: dir, schemas: path.join(REPO, "schemas"), check: true });
    expect(check.mode === "check" && check.extra).toEqual(["generated/client.gen.ts"]);
  });

  it("types every method: tsc accepts right calls and refuses wrong arguments and wrong uses of results", async () => {
    await writeFile(
      path.join(dir, "use.ts"),
      `import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { typedClient } from "./generated/client.gen.js";
export async function use(client: Client): Promise<number> {
  const server = typedClient(client);
  const sum: number | undefined = (await server.tools.add({ a: 1, b: 2 })).structuredContent?.sum;
  const listed = await server.tools.list_tasks(); // limit has a default: optional for the caller
  await server.tools.list_tasks({ status: "open", limit: 5 });
  await server.tools.fetch_page_title({ url: "https://example.com" });
  await server.prompts.plan_day({ focus: "work", max_tasks: 2 });
  await server.resources.task({ id: "T-1" });
  await server.resources.readme();
  return (sum ?? 0) + (listed.structuredContent?.total ?? 0);
}
`,
    );
    await writeFile(
      path.join(dir, "wrong.ts"),
      `import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { typedClient } from "./generated/client.gen.js";
export async function wrong(client: Client): Promise<void> {
  const server = typedClient(client);
  await server.tools.add({ a: "1", b: 2 });
  await server.tools.get_task({});
  const total: string | undefined = (await server.tools.list_tasks()).structuredContent?.total;
  await server.prompts.plan_day({ focus: "someday" });
  await server.resources.task({ name: "T-1" });
  await server.tools.no_such_tool({});
  void total;
}
`,
    );
    const right = await tsc("tsconfig.json");
    expect(right).toEqual({ ok: true, errors: [] });
    const wrong = await tsc("tsconfig.wrong.json");
    expect(wrong.ok).toBe(false);
    // One error on each wrong line, none elsewhere.
    expect([...new Set(wrong.errors.map((e) => e.replace(/: TS\d+$/, "")))]).toEqual([5, 6, 7, 8, 9, 10].map((line) => `wrong.ts(${line})`));
  }, 180_000);

  it("calls the example server over stdio through the typed client", async () => {
    const entry = path.join(dir, "build/generated/server.gen.js");
    expect(existsSync(entry), "compiled by the test before").toBe(true);
    const { typedClient } = (await import(path.join(dir, "build/generated/client.gen.js"))) as typeof import("./expected/client.gen.js");
    const client = new Client({ name: "typed-client-test", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [entry], stderr: "pipe" }));
    try {
      const server = typedClient(client);
      expect((await server.tools.add({ a: 2, b: 3 })).structuredContent).toEqual({ sum: 5 });
      const created = (await server.tools.create_task({ title: "Typed", tags: ["a"] })).structuredContent!;
      expect(created).toMatchObject({ title: "Typed", status: "open", tags: ["a"] });
      const listed = await server.tools.list_tasks();
      expect(listed.structuredContent?.tasks[0]?.id).toBe(created.id); // newest first, 20 at most by default
      expect(listed.structuredContent?.total).toBe(listed.structuredContent?.tasks.length);
      const bad = await server.tools.get_task({ id: "nope" });
      expect(bad.isError).toBe(true);
      const prompt = await server.prompts.plan_day({ focus: "work", max_tasks: 1 });
      expect(JSON.stringify(prompt.messages)).toContain("at most 1");
      const read = await server.resources.task({ id: created.id });
      expect(read.contents[0]?.uri).toBe(`tasks://task/${created.id}`);
      const byStatus = await server.resources.tasks_by_status({ status: "open", limit: 1 });
      expect(byStatus.contents[0]?.uri).toBe("tasks://status/open?limit=1");
      expect((await server.resources.readme()).contents[0]).toMatchObject({ uri: "tasks://readme", mimeType: "text/markdown" });
    } finally {
      await client.close();
    }
  });
});

describe("client input types", () => {
  it("make optional again exactly the properties whose default the server fills in, nested ones too", async () => {
    const { buildFiles, server } = await import("../compiler/helpers.js");
    const tool = {
      inputSchema: {
        type: "object",
        required: ["q", "opts"],
        properties: {
          q: { type: "string", default: "required, so not applied" },
          page: { type: "integer", default: 1 },
          opts: { type: "object", properties: { depth: { type: "integer", default: 2 }, raw: { type: "boolean" } } },
          items: { type: "array", items: { type: "object", properties: { n: { type: "number", default: 0 } } } },
        },
      },
    };
    const { dir, diagnostics } = await buildFiles(server({ "files.find": tool, plain: { inputSchema: { type: "object" } } }), { client: true });
    expect(diagnostics).toBeUndefined();
    const client = await readFile(path.join(dir, "generated/client.gen.ts"), "utf8");
    expect(client).toContain(`"files.find"(...call: Args<WithDefaults<T.FilesFindInput, { "page": true, "opts": { "depth": true }, "items": { "n": true } }>>): Promise<ToolResult>;`);
    expect(client).toContain(`"plain"(...call: Args<T.PlainInput>): Promise<ToolResult>;`);
    expect(client).toContain(`"files.find": tool("files.find"),`);
  });
});
