/**
 * The generated server as a child process, run from its TypeScript sources with no build step: Node
 * loads tsx (`--import`, Node >= 20.6; Node's own `--experimental-strip-types` needs 22.6, and it does not
 * rewrite the `.js` specifiers generated code and handlers import). Used by `mcpgen dev` (one child per
 * restart) and `mcpgen test` (one child for every example).
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** tsx's loader, resolved from mcpgen itself, so a project needs no tsx of its own. */
const TSX = import.meta.resolve("tsx");

const LAUNCH = new URL("./launch.js", import.meta.url);

export interface ChildOptions {
  /** The output folder holding `server.gen.ts`. */
  outDir: string;
  /** The project folder (the child's working directory). */
  cwd: string;
  /** Arguments for the server entry (`--http --port 0`); none: stdio. */
  args?: string[];
  /** Each line the server prints on stderr (its logs, a crash). */
  onStderr?: (line: string, child: ServerChild) => void;
  /** Load Node, tsx and the runtime now, and run the entry only on `go()` (a spare for the next restart). */
  spare?: boolean;
}

/** A running server: newline-delimited JSON on stdin/stdout (stdio), or an HTTP address read from stderr. */
export class ServerChild {
  readonly proc: ChildProcess;
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  readonly exited: Promise<number | string>;
  private lineHandler: (line: string) => void = () => {};
  private started = false;
  /** Resolves when the launcher listens for its entry (a message sent earlier would be lost). */
  private readonly listening: Promise<void>;

  constructor(private readonly options: ChildOptions) {
    this.proc = spawn(process.execPath, ["--import", TSX, fileURLToPath(LAUNCH), options.outDir], {
      cwd: options.cwd,
      stdio: ["pipe", "pipe", "pipe", "ipc"],
    });
    this.listening = new Promise((resolve) => this.proc.once("message", () => resolve()));
    this.exited = new Promise((resolve) => this.proc.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown")));
    // Writing to a child that just died must not take the caller down; the exit is reported through `exited`.
    this.proc.stdin!.on("error", () => {});
    this.proc.on("error", () => {});
    createInterface({ input: this.proc.stdout!, crlfDelay: Infinity }).on("line", (line) => this.lineHandler(line));
    const onStderr = options.onStderr;
    createInterface({ input: this.proc.stderr!, crlfDelay: Infinity }).on("line", (line) => onStderr?.(line, this));
    if (!options.spare) this.go();
  }

  /** Runs the server entry (at once, unless this is a spare). */
  go(): void {
    if (this.started || !this.alive) return;
    this.started = true;
    void this.listening.then(() => this.alive && this.proc.connected && this.proc.send({ entry: path.join(this.options.outDir, "server.gen.ts"), args: this.options.args ?? [] }, () => {
      if (this.proc.connected) this.proc.disconnect();
    }));
  }

  /** Where stdout lines go (stdio: the server's messages). */
  onLine(handler: (line: string) => void): void {
    this.lineHandler = handler;
  }

  send(line: string): void {
    if (this.proc.exitCode === null && this.proc.signalCode === null && this.proc.stdin!.writable) this.proc.stdin!.write(line + "\n");
  }

  get alive(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`; resolves once it has exited. */
  async stop(graceMs = 2000): Promise<void> {
    if (!this.alive) return;
    this.proc.stdin!.end();
    this.proc.kill("SIGTERM");
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.proc.kill("SIGKILL");
        resolve();
      }, graceMs);
    });
    await Promise.race([this.exited, killed]);
    clearTimeout(timer);
    await this.exited;
  }
}
