/**
 * What the `mcpgen import openapi` tests share: the real CLI in a folder of its own, `tsc` over the
 * output, a loopback HTTP server that records each request and answers from a table, and the built
 * server driven by the official SDK client over stdio.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import path from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { AddressInfo } from "node:net";

const run = promisify(execFile);
export const ROOT = path.resolve(import.meta.dirname, "../..");
/** Each test file works in a folder of its own (the files run in parallel): `.tmp/import-openapi/<file>`. */
export const workOf = (file: string): string => path.join(ROOT, ".tmp/import-openapi", path.basename(file, ".test.ts"));
const MCPGEN = path.join(ROOT, "bin/mcpgen.js");
const TSC = path.join(ROOT, "node_modules/typescript/bin/tsc");

export type Ran = { code: number; stdout: string; stderr: string };

/** A fresh, empty folder `name` below `work`. */
export function freshDir(work: string, name: string): string {
  const dir = path.join(work, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** `mcpgen import openapi <args>` in `dir`; never throws, answers the exit code and output. */
export async function importOpenApi(dir: string, args: string[]): Promise<Ran> {
  try {
    const { stdout, stderr } = await run(process.execPath, [MCPGEN, "import", "openapi", ...args], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/**
 * Type-checks and compiles `generated/` and `handlers/` of `dir` into `dir/build`. The generated
 * validators are JavaScript with declarations beside them: they are copied, not compiled (`allowJs`
 * over GitHub's 7 MB of validators takes tsc a minute and more).
 */
export async function compile(dir: string): Promise<void> {
  writeFileSync(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({ extends: path.join(ROOT, "tsconfig.base.json"), compilerOptions: { rootDir: ".", outDir: "build" }, include: ["generated", "handlers"] }),
  );
  await run(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd: dir });
  cpSync(path.join(dir, "generated/validators"), path.join(dir, "build/generated/validators"), { recursive: true, filter: (file) => !file.endsWith(".d.ts") });
}

export interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A loopback API: `answer` gives each request's status and JSON (or text) body; every request is recorded. */
export async function fakeApi(answer: (request: Recorded) => { status: number; json?: unknown; text?: string }): Promise<{ url: string; requests: Recorded[]; close: () => Promise<void> }> {
  const requests: Recorded[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const recorded = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      requests.push(recorded);
      const { status, json, text } = answer(recorded);
      res.writeHead(status, { "content-type": json !== undefined ? "application/json" : "text/plain" });
      res.end(json !== undefined ? JSON.stringify(json) : (text ?? ""));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Starts the compiled server of `dir` over stdio with `env` added, runs `use`, closes it. */
export async function withServer<T>(dir: string, env: Record<string, string>, use: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ name: "mcpgen-test", version: "1" });
  const environment = { ...(process.env as Record<string, string>), ...env };
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [path.join(dir, "build/generated/server.gen.js")], env: environment, stderr: "ignore" }));
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}
