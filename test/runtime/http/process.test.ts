/**
 * The generated server's command line with `--http`: it listens on 127.0.0.1 (an ephemeral port here), serves
 * both eras, keeps stdout empty, and exits 0 on SIGTERM after closing its sessions.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseArgs } from "../../../packages/runtime/src/index.js";
import { listeningUrl } from "../../helpers/wait.js";
import { assertRuntimeBuilt, FIXTURE_SERVER } from "../helpers/e2e.js";
import { initialize, messagesOf, modern } from "./helpers.js";

const children: ChildProcess[] = [];
beforeAll(assertRuntimeBuilt);
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

describe("--http on the command line", () => {
  it.each([
    [["--http"], { kind: "serve", options: { transport: "http" } }],
    [["--http", "--port", "0", "--host", "::1"], { kind: "serve", options: { transport: "http", port: 0, host: "::1" } }],
    [["--http", "--stateless", "--path=/x", "--response-mode", "json"], { kind: "serve", options: { transport: "http", stateless: true, path: "/x", responseMode: "json" } }],
    [["--http", "--allowed-host", "a.example", "--allowed-host", "b.example", "--cors-origin", "*"], { kind: "serve", options: { transport: "http", allowedHosts: ["a.example", "b.example"], corsOrigins: ["*"] } }],
    [["--http", "--max-body", "1024"], { kind: "serve", options: { transport: "http", maxBodyBytes: 1024 } }],
    [["--port", "3000"], { kind: "error", message: "--port needs --http" }],
    [["--http", "--port", "70000"], { kind: "error", message: '--port must be a port number, got "70000"' }],
    [["--http", "--response-mode", "xml"], { kind: "error", message: '--response-mode must be auto, json or sse, got "xml"' }],
    [["--http", "--path", "mcp"], { kind: "error", message: '--path must start with "/", got "mcp"' }],
    [["--http=1"], { kind: "error", message: "--http takes no value" }],
  ])("parses %j", (argv, expected) => {
    expect(parseArgs(argv)).toEqual(expected);
  });

  it("serves over HTTP on loopback, keeps stdout empty, and exits 0 on SIGTERM", async () => {
    const child = spawn(FIXTURE_SERVER.command, [...FIXTURE_SERVER.args, "--http", "--port", "0"], { cwd: FIXTURE_SERVER.cwd, stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const url = await listeningUrl(child);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    await initialize(url);
    const response = await modern(url, 1, "tools/call", { name: "echo", arguments: { text: "over http" } });
    expect((await messagesOf(response, "2026-07-28", "tools/call"))[0]).toMatchObject({ result: { content: [{ text: "over http" }] } });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(stdout).toBe("");
  });
});
