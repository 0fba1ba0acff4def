/**
 * `mcpgen dev`: watch the schemas and the handlers, rebuild (the build's cache makes that incremental),
 * restart the server, type-check in the background. The client talks to a front that stays up the whole
 * time (stdio: this process; HTTP: a fixed port) and never reaches a server built from older schemas:
 * from the moment a change is seen, its requests wait for the new server, and while the build is broken
 * they are answered with an error naming the problem.
 */
import path from "node:path";
import { watch, type FSWatcher } from "chokidar";
import { build, DiagnosticError, formatDiagnostic, OutputError, resolveConfig, type BuildOptions } from "../compiler/index.js";
import { ServerChild } from "./child.js";
import { HttpFront } from "./http-front.js";
import { StdioFront } from "./stdio-front.js";
import { Typechecker } from "./typecheck.js";
import { Writes } from "./writes.js";

export interface DevOptions extends BuildOptions {
  /** Serve Streamable HTTP on 127.0.0.1:<port> instead of stdio. */
  http?: number;
  /** Type-check the project after each change (default true). */
  typecheck?: boolean;
  /** How long to wait for more changes before rebuilding (default 10 ms: a save of several files). */
  settleMs?: number;
}

export interface DevIO {
  /** Progress and diagnostics (stderr). */
  say: (line: string) => void;
  /** stdio front: the client's lines in, ours out. */
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
}

export interface DevSession {
  /** Resolves when dev has stopped (after `stop()`, or when the stdio client hung up). */
  readonly stopped: Promise<void>;
  stop(): Promise<void>;
}

type Front = { hold(): void; dropped(reason: string): void; up(child: ServerChild): void | Promise<void>; down(reason: string): void; close?(): Promise<void> };

export async function dev(options: DevOptions, io: DevIO): Promise<DevSession> {
  const { http, typecheck = true, settleMs = 10, ...buildOptions } = options;
  const config = resolveConfig(buildOptions);
  const say = (line: string) => io.say(`mcpgen dev: ${line}`);
  const shown = (file: string) => path.relative(config.cwd, file).split(path.sep).join("/") || ".";

  let front: Front;
  let httpFront: HttpFront | undefined;
  if (http !== undefined) {
    httpFront = new HttpFront();
    const url = await httpFront.listen(http);
    say(`serving MCP on ${url} (the server behind it restarts on every change)`);
    front = httpFront;
  } else {
    const stdio = new StdioFront((line) => io.stdout!.write(line + "\n"));
    front = stdio;
    const { createInterface } = await import("node:readline");
    const lines = createInterface({ input: io.stdin!, crlfDelay: Infinity });
    lines.on("line", (line) => stdio.fromClient(line));
    lines.once("close", () => void stop());
  }

  const checker = typecheck ? new Typechecker(config.cwd, config.cacheDir) : undefined;
  if (checker?.unavailable) say(`no type check: ${checker.unavailable}`);
  let child: ServerChild | undefined;
  let stopping = false;
  let broken = false;
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));

  /** Stops the current child; its unanswered requests get `reason`. */
  async function retire(reason: string): Promise<void> {
    const old = child;
    child = undefined;
    front.dropped(reason);
    await old?.stop();
  }

  // The next server is started ahead of time (Node, tsx and the runtime loaded; see launch.ts) and runs
  // the entry only when a change needs it, so a restart does not wait for Node and tsx to boot.
  let spare: ServerChild | undefined;
  const newChild = (isSpare: boolean) =>
    new ServerChild({
      outDir: config.outDir,
      cwd: config.cwd,
      spare: isSpare,
      ...(httpFront && { args: ["--http", "--host", "127.0.0.1", "--port", "0"] }),
      onStderr: (line, from) => {
        if (httpFront?.announce(from, line)) return;
        io.say(`  server: ${line}`);
      },
    });

  async function start(): Promise<void> {
    const started = performance.now();
    const next = spare?.alive ? spare : newChild(false);
    spare = undefined;
    next.go();
    child = next;
    void next.exited.then((code) => {
      if (child !== next || stopping) return;
      child = undefined;
      const reason = `the server exited (${code}) — see its output above; it starts again on the next change`;
      say(reason);
      front.dropped(reason);
      front.down(reason);
    });
    await front.up(next);
    if (child === next) say(`server ready (pid ${next.proc.pid}, ${Math.round(performance.now() - started)} ms)`);
    // Started once this one is ready, so that its boot does not compete with this one's for the CPU.
    if (!stopping) spare = newChild(true);
  }

  /** One round: rebuild if the schemas changed, restart, type-check. */
  async function round(schemasChanged: boolean): Promise<void> {
    const started = performance.now();
    front.hold();
    // While the build is broken, generated/ is older than the schemas: a handler edit must not start a
    // server from it, so it rebuilds (and stays broken) too.
    if (schemasChanged || broken) {
      try {
        const result = await build({ ...buildOptions, check: false });
        for (const warning of result.warnings) io.say(formatDiagnostic(warning));
        const changed = result.mode === "write" ? result.updated.length + result.removed.length : 0;
        for (const f of result.mode === "write" ? result.createdHandlers : []) say(`created handler ${f} (yours to edit)`);
        broken = false;
        say(`rebuilt in ${Math.round(performance.now() - started)} ms (${changed ? `${changed} files changed` : "output unchanged"})`);
      } catch (error) {
        if (!(error instanceof DiagnosticError || error instanceof OutputError)) throw error;
        const lines = error instanceof DiagnosticError ? error.diagnostics.map(formatDiagnostic) : [error.message];
        for (const line of lines) io.say(line);
        const errors = error instanceof DiagnosticError ? error.errors : 1;
        const reason = `the build is broken (${errors} problem${errors === 1 ? "" : "s"}): ${lines[0]}${lines.length > 1 ? ` (and ${lines.length - 1} more, printed by mcpgen dev)` : ""}`;
        broken = true;
        say(`build failed; requests get an error until it is fixed`);
        await retire(reason);
        front.down(reason);
        return;
      }
    }
    // The old server exits while the next one starts: waiting for its exit first made a restart wait for
    // Node's exit too (5-10 ms on a quiet machine, 40-70 ms on a busy one).
    const retired = retire("the server restarted (a file changed) while this request was in flight; send it again");
    if (!stopping) await start();
    await retired;
    if (stopping) return;
    say(`restarted in ${Math.round(performance.now() - started)} ms`);
    void typecheckRound();
  }

  async function typecheckRound(): Promise<void> {
    if (!checker || checker.unavailable) return;
    const report = await checker.run();
    if (!report || stopping) return;
    for (const line of report.lines) io.say(line);
    say(report.errors ? `types: ${report.errors} error${report.errors === 1 ? "" : "s"} (${Math.round(report.ms)} ms; the server runs anyway)` : `types ok (${Math.round(report.ms)} ms)`);
  }

  // Rounds run one at a time; changes seen during a round make one more round after it.
  let queued: { schemas: boolean } | undefined;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  function changed(schemas: boolean): void {
    if (stopping) return;
    queued = { schemas: (queued?.schemas ?? false) || schemas };
    front.hold();
    clearTimeout(timer);
    timer = setTimeout(pump, settleMs);
  }
  function pump(): void {
    if (running || !queued || stopping) return;
    const next = queued;
    queued = undefined;
    running = round(next.schemas)
      .catch((error: unknown) => {
        // Requests must not wait for a server that will not come.
        say(`internal error, a bug in mcpgen: ${(error as Error).stack ?? String(error)}`);
        front.down(`internal error in mcpgen dev (${(error as Error).message}); it tries again on the next change`);
      })
      .finally(() => {
        running = undefined;
        if (queued) pump();
      });
  }

  // An editor's save (or writeFile) may be seen half-written: an added or changed file counts once it is
  // whole (writes.ts: a JSON file as soon as it parses, others once their size has held for 40 ms).
  const writes = new Writes((file) => changed(isInside(file, config.schemasDir)));
  const watcher: FSWatcher = watch([config.schemasDir, config.handlersDir], {
    ignoreInitial: true,
    ignored: (file: string) => path.basename(file).startsWith(".") && file !== config.schemasDir && file !== config.handlersDir,
  });
  watcher.on("all", (event, file) => (event === "add" || event === "change" ? writes.changed(file) : changed(isInside(file, config.schemasDir))));
  await new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
  say(`watching ${shown(config.schemasDir)}/ and ${shown(config.handlersDir)}/`);

  queued = { schemas: true };
  pump();

  async function stop(): Promise<void> {
    if (stopping) return stopped;
    stopping = true;
    clearTimeout(timer);
    await watcher.close();
    writes.close();
    await running;
    checker?.cancel();
    await retire("mcpgen dev is stopping");
    await spare?.stop();
    await front.close?.();
    resolveStopped();
  }
  return { stopped, stop };
}

function isInside(file: string, dir: string): boolean {
  const rel = path.relative(dir, file);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}
