// End-to-end: `mcpgen dev` through the real binary, driven by the official MCP SDK client over stdio.
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { build } from "../../dist/compiler/index.js";
import { ServerChild } from "../../dist/dev/child.js";
import { REPO, server, tempProject, writeSchemas } from "../compiler/helpers.js";

const BIN = path.join(REPO, "bin/mcpgen.js");

const echo = (description: string) => ({
  description,
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
});

const HANDLER = `import type { EchoHandler } from "../../generated/handlers.gen.js";
const handler: EchoHandler = async ({ text }) => text;
export default handler;
`;

/** Polls `probe` every 50 ms until it returns a value (not undefined); fails after `ms`. */
async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A project inside the repository (so `@mcpgen/runtime` resolves) with the `echo` tool, and dev running on it. */
async function startDev(extra: string[] = []) {
  const dir = await tempProject(true);
  await writeSchemas(dir, server({ echo: echo("Echoes, version 1.") }));
  await mkdir(path.join(dir, "src/handlers"), { recursive: true });
  await writeFile(path.join(dir, "src/handlers/echo.ts"), HANDLER);
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, "dev", ...extra], cwd: dir, stderr: "pipe" });
  let stderr = "";
  transport.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "dev-test", version: "1" });
  let listChanged = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged++);
  await client.connect(transport);
  const devPid = transport.pid!;
  cleanups.push(async () => {
    await client.close().catch(() => {});
    if (alive(devPid)) process.kill(devPid, "SIGKILL");
  });
  return { dir, client, transport, devPid, stderr: () => stderr, listChanged: () => listChanged };
}

/** The processes started by `pid`, their children and so on (Linux: read from /proc). */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  for (let frontier = [pid]; frontier.length; ) {
    const next = [...parents].filter(([, parent]) => frontier.includes(parent)).map(([child]) => child);
    found.push(...next);
    frontier = next;
  }
  return found;
}

const serverPids = (stderr: string) => [...stderr.matchAll(/server ready \(pid (\d+)/g)].map((m) => Number(m[1]));

describe("mcpgen dev", () => {
  it("serves the schemas as they change, says so while the build is broken, and leaves no process behind", async () => {
    const { dir, client, devPid, stderr, listChanged } = await startDev(["--no-typecheck"]);
    const description = async () => (await client.listTools()).tools.find((t) => t.name === "echo")?.description;
    expect(await description()).toBe("Echoes, version 1.");
    expect(await client.callTool({ name: "echo", arguments: { text: "hi" } })).toMatchObject({ content: [{ type: "text", text: "hi" }] });

    // An edit: tools/list shows it, and the client (whose session went on) was told the list changed.
    await writeSchemas(dir, { "tools/echo.json": echo("Echoes, version 2.") });
    await until("the edited description", async () => ((await description().catch(() => undefined)) === "Echoes, version 2." ? true : undefined));
    await until("tools/list_changed", () => (listChanged() > 0 ? true : undefined));
    expect(stderr()).toMatch(/mcpgen dev: rebuilt in \d+ ms/);
    // Said once the old server has exited, which may be after the new one already answers.
    await until("the restart reported", () => (/mcpgen dev: restarted in \d+ ms/.test(stderr()) ? true : undefined));

    // A new tool: served, and its handler stub created.
    await writeSchemas(dir, { "annotations.json": { tools: { echo: "readOnly", shout: "readOnly" } }, "tools/shout.json": echo("Shouts.") });
    await until("the new tool", async () => ((await client.listTools().catch(() => undefined))?.tools.some((t) => t.name === "shout") ? true : undefined));
    expect(stderr()).toContain("mcpgen dev: created handler src/handlers/shout.ts (yours to edit)");

    // Broken: the diagnostic is printed and every request is answered with an error that names it.
    await writeFile(path.join(dir, "schemas/tools/echo.json"), '{ "description": "oops", ');
    await until("the diagnostic", () => (/schemas\/tools\/echo\.json#: .*\n/.test(stderr()) ? true : undefined));
    const refused = await until("a refused request", () =>
      client.listTools().then(
        () => undefined,
        (error: Error) => error,
      ),
    );
    expect(refused.message).toMatch(/mcpgen dev: the build is broken \(1 problem\): schemas\/tools\/echo\.json#/);
    await expect(client.callTool({ name: "echo", arguments: { text: "hi" } })).rejects.toThrow(/the build is broken/);

    // A handler edit while broken does not bring back a server built from the old schemas.
    const diagnostics = () => stderr().match(/schemas\/tools\/echo\.json#: /g)?.length ?? 0;
    const seen = diagnostics();
    await writeFile(path.join(dir, "src/handlers/echo.ts"), HANDLER.replace("=> text", '=> `${text}?`'));
    await until("the rebuild after the handler edit", () => (diagnostics() > seen ? true : undefined));
    await expect(client.listTools()).rejects.toThrow(/the build is broken/);

    // Fixed: served again, with the new schema.
    await writeSchemas(dir, { "tools/echo.json": echo("Echoes, version 3.") });
    await until("the fixed server", async () => ((await description().catch(() => undefined)) === "Echoes, version 3." ? true : undefined));
    expect(await client.callTool({ name: "echo", arguments: { text: "again" } })).toMatchObject({ content: [{ text: "again?" }] });

    // Stopping the client stops dev, and dev stops every process it started (the spare server too).
    const pids = [...new Set([...serverPids(stderr()), ...descendants(devPid)])];
    expect(serverPids(stderr()).length).toBeGreaterThanOrEqual(3);
    expect(descendants(devPid).length).toBeGreaterThanOrEqual(2); // the server and the spare waiting to be the next one
    await client.close();
    await until("dev and its servers to exit", () => ([devPid, ...pids].some(alive) ? undefined : true));
  }, 90_000);

  it("restarts on a handler edit, and reports type errors without stopping the loop", async () => {
    const { dir, client, stderr } = await startDev();
    await writeFile(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { strict: true, target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", skipLibCheck: true, noEmit: true }, include: ["src", "generated"] }),
    );
    // A handler that no longer fits its type: tsc says so, and the server still runs the new code.
    await writeFile(path.join(dir, "src/handlers/echo.ts"), HANDLER.replace("async ({ text }) => text", 'async ({ text }) => { const wrong: number = text; return `${wrong}!`; }'));
    // The error and the summary after it may reach stderr in separate chunks: wait for both.
    const reported = () => /src\/handlers\/echo\.ts\(\d+,\d+\): error TS\d+/.test(stderr()) && /mcpgen dev: types: 1 error \(\d+ ms; the server runs anyway\)/.test(stderr());
    await until("the type error and its summary", () => (reported() ? true : undefined), 60_000);
    expect(stderr().indexOf("error TS")).toBeLessThan(stderr().indexOf("mcpgen dev: types: 1 error"));
    const text = async () => ((await client.callTool({ name: "echo", arguments: { text: "abc" } })) as { content: { text: string }[] }).content[0]?.text;
    await until("the new handler", async () => ((await text().catch(() => undefined)) === "abc!" ? true : undefined));
  }, 90_000);
});

describe("the spare server of mcpgen dev", () => {
  it("starts esbuild's service while it waits, and serves when told to", async () => {
    const dir = await tempProject(true);
    await writeSchemas(dir, server({ echo: echo("Echoes, version 1.") }));
    await mkdir(path.join(dir, "src/handlers"), { recursive: true });
    await writeFile(path.join(dir, "src/handlers/echo.ts"), HANDLER);
    await build({ cwd: dir });
    const spare = new ServerChild({ outDir: path.join(dir, "generated"), cwd: dir, spare: true });
    cleanups.push(() => spare.stop());
    const pid = spare.proc.pid!;
    const commandLine = (child: number) => {
      try {
        return readFileSync(`/proc/${child}/cmdline`, "utf8");
      } catch {
        return "";
      }
    };
    await until("esbuild's service under the spare", () => (descendants(pid).some((child) => commandLine(child).includes("esbuild")) ? true : undefined));

    const answer = new Promise<string>((resolve) => spare.onLine(resolve));
    spare.go();
    spare.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } } }));
    expect(JSON.parse(await answer)).toMatchObject({ id: 1, result: { serverInfo: { name: "test" } } });
  }, 60_000);
});

describe("mcpgen dev --help", () => {
  it("names every option", async () => {
    const { execFile } = await import("node:child_process");
    const { promisify } = await import("node:util");
    const { stdout } = await promisify(execFile)(process.execPath, [BIN, "dev", "--help"], { cwd: REPO });
    for (const flag of ["[schemas]", "--out <dir>", "--handlers <dir>", "--http <port>", "--no-typecheck", "list_changed", "-32000"]) expect(stdout).toContain(flag);
  });
});

describe("mcpgen dev --http", () => {
  it("keeps one address across restarts, answers 503 with the build problem while broken, and stops on SIGTERM", async () => {
    const { spawn } = await import("node:child_process");
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const dir = await tempProject(true);
    await writeSchemas(dir, server({ echo: echo("Echoes, version 1.") }));
    await mkdir(path.join(dir, "src/handlers"), { recursive: true });
    await writeFile(path.join(dir, "src/handlers/echo.ts"), HANDLER);
    const proc = spawn(process.execPath, [BIN, "dev", "--http", "0", "--no-typecheck"], { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    proc.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    cleanups.push(async () => void (proc.exitCode === null && proc.kill("SIGKILL")));
    const url = await until("the address", () => /serving MCP on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1]);

    // Each look is a fresh session: a 2025-era session does not outlive the server that opened it.
    const description = async () => {
      const client = new Client({ name: "dev-http-test", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        return (await client.listTools()).tools.find((t) => t.name === "echo")?.description;
      } finally {
        await client.close();
      }
    };
    expect(await until("the first server", () => description().catch(() => undefined))).toBe("Echoes, version 1.");
    await writeSchemas(dir, { "tools/echo.json": echo("Echoes, version 2.") });
    await until("the edit", async () => ((await description().catch(() => undefined)) === "Echoes, version 2." ? true : undefined));

    await writeFile(path.join(dir, "schemas/tools/echo.json"), "[]");
    const post = () =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } }),
      });
    const refused = await until("a 503", async () => {
      const res = await post();
      return res.status === 503 ? ((await res.json()) as { id: unknown; error: { code: number; message: string } }) : (await res.body?.cancel(), undefined);
    });
    expect(refused.id).toBe(7);
    expect(refused.error.code).toBe(-32000);
    expect(refused.error.message).toMatch(/^mcpgen dev: the build is broken \(\d+ problems?\): schemas\/tools\/echo\.json#/);

    await writeSchemas(dir, { "tools/echo.json": echo("Echoes, version 3.") });
    await until("the fix", async () => ((await description().catch(() => undefined)) === "Echoes, version 3." ? true : undefined));

    const pids = [...new Set([...serverPids(stderr), ...descendants(proc.pid!)])];
    expect(descendants(proc.pid!).length).toBeGreaterThanOrEqual(2);
    proc.kill("SIGTERM");
    await exited;
    await until("the servers to exit", () => (pids.some(alive) ? undefined : true));
  }, 90_000);
});
