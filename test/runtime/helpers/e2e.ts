/**
 * End-to-end plumbing: which server command to test, a wiretap that records and spec-checks every
 * message on the wire, and process hygiene (everything spawned is killed afterwards).
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { assertServerMessage, REPO_ROOT, type SpecVersion } from "./spec.js";

/** How to start a stdio server. */
export interface ServerCommand {
  command: string;
  args: string[];
  cwd?: string;
}


/** A fixture server built by mcpgen from test/runtime/fixture-schemas (see test/global-setup.ts), compiled. */
export function builtFixture(name: string): { server: ServerCommand; registry: string } {
  const build = resolve(REPO_ROOT, ".tmp/runtime-fixtures", name, "build/generated");
  return { server: { command: process.execPath, args: [join(build, "server.gen.js")], cwd: REPO_ROOT }, registry: join(build, "registry.gen.js") };
}

/** The core fixture server (test/runtime/fixture-schemas/core), as built by mcpgen. */
export const FIXTURE_SERVER: ServerCommand = builtFixture("core").server;

/** The repository's example server (schemas/ → generated/ + src/handlers/), compiled by test/global-setup.ts. */
export const EXAMPLE_SERVER: ServerCommand = {
  command: process.execPath,
  args: [resolve(REPO_ROOT, ".tmp/example-build/generated/server.gen.js")],
  cwd: REPO_ROOT,
};

/**
 * The server the generic end-to-end tests drive: the generated example, unless `MCPGEN_E2E_SERVER` holds a
 * JSON array `[command, ...args]`. The tests that depend on fixture tools (slow, stubborn, log, …) use
 * `FIXTURE_SERVER`.
 */
export function serverUnderTest(): ServerCommand {
  const override = process.env.MCPGEN_E2E_SERVER;
  if (!override) return EXAMPLE_SERVER;
  const [command, ...args] = JSON.parse(override) as string[];
  if (!command) throw new Error("MCPGEN_E2E_SERVER must be a JSON array: [command, ...args]");
  return { command, args, cwd: REPO_ROOT };
}

/** The e2e servers import the built runtime (dist/); fail loudly when it is older than packages/runtime/src. */
export function assertRuntimeBuilt(): void {
  const built = resolve(REPO_ROOT, "packages/runtime/dist/index.js");
  if (!existsSync(built)) throw new Error("the runtime build (packages/runtime/dist) is missing: run `npm run build` (npm test does) before these tests");
  const srcDir = resolve(REPO_ROOT, "packages/runtime/src");
  const newest = Math.max(...readdirSync(srcDir).map((file) => statSync(join(srcDir, file)).mtimeMs));
  if (newest > statSync(built).mtimeMs) throw new Error("the runtime build (packages/runtime/dist) is older than packages/runtime/src: run `npm run build` (npm test does)");
}

const TAP = resolve(REPO_ROOT, "test/runtime/helpers/tap.mjs");

/** One message the server sent, with the protocol version it was checked against. */
export interface WireMessage {
  message: Record<string, unknown>;
  version: SpecVersion;
  /** For responses: the method of the request answered. */
  method?: string | undefined;
}

/** What one server process saw and said. */
export interface TappedProcess {
  serverPid: number | undefined;
  exit: { code: string; signal: string } | undefined;
  fromClient: unknown[];
  fromServer: WireMessage[];
}

const MODERN = "2026-07-28";
const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";

/** Every tap not cleaned up yet: a test may start several. */
const taps = new Set<WireTap>();

/** Cleans up every tap made since the last call. */
export function cleanupTaps(): void {
  for (const tap of taps) tap.cleanup();
}

export class WireTap {
  readonly dir = mkdtempSync(join(tmpdir(), "mcpgen-tap-"));
  private files = 0;

  constructor() {
    taps.add(this);
  }

  /** `server` (plus `extraArgs`) behind a tap that logs to a fresh file in `dir`. */
  wrap(server: ServerCommand, extraArgs: string[] = []): ServerCommand & { cwd: string } {
    const log = join(this.dir, `${++this.files}.log`);
    return { command: process.execPath, args: [TAP, log, server.command, ...server.args, ...extraArgs], cwd: server.cwd ?? REPO_ROOT };
  }

  /**
   * Parses every log and checks every server message against the spec schema of the version in force:
   * a response with its request's version (2026-07-28 for `_meta`-enveloped requests, else the version the
   * `initialize` answered); notifications with the version of the newest request still open.
   */
  verify(): TappedProcess[] {
    const processes: TappedProcess[] = [];
    for (const file of readdirSync(this.dir).sort()) {
      const byTap = new Map<string, string[]>();
      for (const line of readFileSync(join(this.dir, file), "utf8").split("\n")) {
        if (line === "") continue;
        const space = line.indexOf(" ");
        const tap = line.slice(0, space);
        if (!byTap.has(tap)) byTap.set(tap, []);
        byTap.get(tap)?.push(line.slice(space + 1));
      }
      for (const lines of byTap.values()) processes.push(replay(lines));
    }
    return processes;
  }

  /** Kills whatever the taps started that is still running, then removes the logs. */
  cleanup(): void {
    taps.delete(this);
    if (!existsSync(this.dir)) return;
    for (const file of readdirSync(this.dir)) {
      for (const line of readFileSync(join(this.dir, file), "utf8").split("\n")) {
        const [tap, kind, pid] = line.split(" ");
        for (const candidate of kind === "P" ? [pid, tap] : [tap]) killIfAlive(Number(candidate));
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function replay(lines: string[]): TappedProcess {
  const result: TappedProcess = { serverPid: undefined, exit: undefined, fromClient: [], fromServer: [] };
  const open = new Map<string, { method: string; version: SpecVersion | undefined }>();
  let legacy: SpecVersion | undefined;
  const versionOf = (request: Record<string, unknown>): SpecVersion | undefined => {
    if (request.method === "initialize") return undefined; // known from the answer
    const meta = (request.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
    const requested = meta?.[PROTOCOL_VERSION];
    if (requested !== undefined && (requested === MODERN || !legacy)) return MODERN;
    return legacy ?? "2025-11-25";
  };
  const fromClient = (message: unknown): void => {
    if (Array.isArray(message)) return message.forEach(fromClient);
    const m = message as Record<string, unknown>;
    result.fromClient.push(m);
    if (typeof m.method === "string" && m.id !== undefined) open.set(JSON.stringify(m.id), { method: m.method, version: versionOf(m) });
  };
  const fromServer = (message: unknown): void => {
    if (Array.isArray(message)) return message.forEach(fromServer);
    const m = message as Record<string, unknown>;
    const key = m.id === undefined ? undefined : JSON.stringify(m.id);
    const request = key === undefined ? undefined : open.get(key);
    let version: SpecVersion;
    if ("result" in m || "error" in m) {
      if (key !== undefined) open.delete(key);
      if (request?.method === "initialize" && "result" in m) {
        legacy = (m.result as { protocolVersion: SpecVersion }).protocolVersion;
      }
      version = request?.version ?? legacy ?? MODERN;
    } else {
      version = [...open.values()].at(-1)?.version ?? legacy ?? MODERN;
    }
    assertServerMessage(m, version, { method: request?.method });
    result.fromServer.push({ message: m, version, method: request?.method });
  };

  for (const line of lines) {
    const space = line.indexOf(" ");
    const kind = line.slice(0, space);
    const payload = line.slice(space + 1);
    if (kind === "P") result.serverPid = Number(payload);
    else if (kind === "X") {
      const [code = "", signal = ""] = payload.split(" ");
      result.exit = { code, signal };
    } else if (kind === "C") {
      try {
        fromClient(JSON.parse(payload));
      } catch {
        result.fromClient.push(payload); // a deliberately malformed line
      }
    } else if (kind === "S") {
      let parsed: unknown;
      try {
        parsed = JSON.parse(payload);
      } catch {
        throw new Error(`the server wrote a line to stdout that is not JSON: ${payload}`);
      }
      fromServer(parsed);
    }
  }
  return result;
}

function killIfAlive(pid: number): void {
  if (!Number.isInteger(pid) || pid <= 0) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** A raw stdio session with a server process: write lines, read lines, check each against the spec. */
export class RawServer {
  readonly child: ChildProcessWithoutNullStreams;
  readonly stderr: string[] = [];
  private readonly lines: string[] = [];
  private waiters: (() => void)[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(server: ServerCommand, extraArgs: string[] = []) {
    this.child = spawn(server.command, [...server.args, ...extraArgs], { cwd: server.cwd ?? REPO_ROOT, stdio: "pipe" });
    let partial = "";
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string) => {
      const parts = (partial + chunk).split("\n");
      partial = parts.pop() ?? "";
      this.lines.push(...parts);
      this.wake();
    });
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => this.stderr.push(chunk));
    this.child.stdin.on("error", () => {});
    this.exited = new Promise((resolve) => this.child.on("close", (code, signal) => resolve({ code, signal })));
    void this.exited.then(() => this.wake());
  }

  send(message: unknown): void {
    this.child.stdin.write(`${typeof message === "string" ? message : JSON.stringify(message)}\n`);
  }

  /** The next stdout line, parsed and checked against `version` (as an answer to `method`, if given). */
  async next(version: SpecVersion, method?: string, timeoutMs = 5000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    while (this.lines.length === 0) {
      if (this.child.exitCode !== null || this.child.signalCode !== null) throw new Error(`server exited; stderr: ${this.stderr.join("")}`);
      if (Date.now() > deadline) throw new Error(`no message within ${timeoutMs} ms; stderr: ${this.stderr.join("")}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    const line = this.lines.shift() as string;
    const message = JSON.parse(line) as Record<string, unknown>;
    assertServerMessage(message, version, { method });
    return message;
  }

  /** Every stdout line not read yet. */
  rest(): string[] {
    return this.lines.splice(0);
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

const INSPECTOR = resolve(REPO_ROOT, "node_modules/@modelcontextprotocol/inspector-cli/build/index.js");

/**
 * Runs the MCP Inspector CLI against `target` (a tapped server command) with `args`, killed after 20 s.
 * It starts in test/, a folder whose parent has a package.json, as the inspector needs. `onSpawn` gets a
 * kill function for the test's clean-up.
 */
export function runInspector(
  target: ServerCommand,
  args: string[],
  onSpawn: (kill: () => void) => void,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [INSPECTOR, target.command, ...target.args, ...args], { cwd: resolve(REPO_ROOT, "test"), stdio: ["ignore", "pipe", "pipe"] });
    onSpawn(() => void child.kill("SIGKILL"));
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}
