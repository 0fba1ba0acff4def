/**
 * `mcpgen test`: every tool's `examples` run as contract tests. The server is built (so it serves what the
 * schemas say), started as it runs in production (the generated entry, the real handlers, over stdio) and
 * sent a `tools/call` per example; each answer is checked against the example and the tool's
 * `outputSchema`, which is compiled here on its own so that the check does not trust the validators under
 * test.
 */
import { isDeepStrictEqual } from "node:util";
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { build, compileIr, type BuildOptions, type ToolIR } from "../compiler/index.js";
import { ServerChild } from "../dev/child.js";

// ajv-formats is CommonJS; its default export arrives as the module object under NodeNext.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export interface ContractOptions extends BuildOptions {
  /** How long one call may take before it counts as failed (default 10 s). */
  timeoutMs?: number;
  /** The server's own stderr lines (handler logs); dropped by default. */
  onServerLog?: (line: string) => void;
}

export interface ExampleOutcome {
  tool: string;
  /** `schemas/tools/add.json#/examples/2`. */
  at: string;
  description: string | undefined;
  /** Empty when the example passed. */
  problems: string[];
}

export interface ContractResult {
  outcomes: ExampleOutcome[];
  passed: number;
  failed: number;
}

const PROTOCOL_VERSION = "2025-06-18";

/** Builds the server, runs every example, stops the server. Throws the build's `DiagnosticError`. */
export async function runExamples(options: ContractOptions = {}): Promise<ContractResult> {
  const { timeoutMs = 10_000, onServerLog, ...buildOptions } = options;
  const built = await build({ ...buildOptions, check: false });
  const { ir } = await compileIr(buildOptions);
  const tools = ir.tools.filter((t) => t.examples.length);
  const outcomes: ExampleOutcome[] = [];
  if (!tools.length) return { outcomes, passed: 0, failed: 0 };

  // The server's last lines on stderr, to show if it does not start.
  const tail: string[] = [];
  const onStderr = (line: string) => {
    onServerLog?.(line);
    if (tail.push(line) > 20) tail.shift();
  };
  const child = new ServerChild({ outDir: built.config.outDir, cwd: built.config.cwd, onStderr });
  const client = new LineClient(child, timeoutMs);
  try {
    try {
      await client.request("initialize", { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "mcpgen-test", version: "1" } });
    } catch (error) {
      const shown = onServerLog ? [] : tail.map((line) => `\n  server: ${line}`);
      throw new ServerStartError(`the server did not start: ${(error as Error).message}${shown.join("")}`);
    }
    client.notify("notifications/initialized");
    for (const tool of tools) {
      const validate = outputValidator(tool);
      for (const [i, example] of tool.examples.entries()) {
        const problems: string[] = [];
        try {
          const result = (await client.request("tools/call", { name: tool.name, arguments: example.input })) as CallResult;
          problems.push(...judge(tool, example, result, validate));
        } catch (error) {
          problems.push((error as Error).message);
        }
        outcomes.push({ tool: tool.name, at: `${tool.sources[0]}#/examples/${i}`, description: example.description, problems });
      }
    }
  } finally {
    client.close();
    await child.stop();
  }
  const failed = outcomes.filter((o) => o.problems.length).length;
  return { outcomes, passed: outcomes.length - failed, failed };
}

/** The server could not be started or initialized: nothing was tested (exit 1, not an internal error). */
export class ServerStartError extends Error {}

interface CallResult {
  content?: { type: string; text?: string }[];
  structuredContent?: unknown;
  isError?: boolean;
}

/** What is wrong with one answer (nothing: the example passed). */
export function judge(tool: ToolIR, example: ToolIR["examples"][number], result: CallResult, validate: ValidateFunction | undefined): string[] {
  const text = (result.content ?? []).map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");
  if (example.isError === true) {
    if (result.isError !== true) return [`expected an isError result, got a successful one: ${clip(result.structuredContent !== undefined ? JSON.stringify(result.structuredContent) : text)}`];
    if (example.error !== undefined && !text.includes(example.error)) return [`the error text does not contain ${JSON.stringify(example.error)}: ${clip(text)}`];
    return [];
  }
  if (result.isError === true) return [`the tool answered with an error: ${clip(text)}`];
  if (!validate) return [];
  if (result.structuredContent === undefined) return ["the result has no structuredContent, but the tool has an outputSchema"];
  const problems: string[] = [];
  if (!validate(result.structuredContent)) {
    for (const e of validate.errors ?? []) problems.push(`structuredContent does not match the outputSchema: ${e.instancePath || "(root)"} ${e.message ?? "is invalid"}`);
  }
  if (example.output !== undefined && !isDeepStrictEqual(result.structuredContent, example.output)) {
    const where = firstDifference(example.output, result.structuredContent, "");
    problems.push(`output differs at ${where.pointer || "(root)"}: expected ${clip(JSON.stringify(where.want))}, got ${clip(JSON.stringify(where.got) ?? "nothing")}`);
  }
  return problems;
}

/** The first place (JSON pointer) where `got` differs from `want`, for a message that points at it. */
export function firstDifference(want: unknown, got: unknown, pointer: string): { pointer: string; want: unknown; got: unknown } {
  const bothObjects = want !== null && got !== null && typeof want === "object" && typeof got === "object" && Array.isArray(want) === Array.isArray(got);
  if (!bothObjects) return { pointer, want, got };
  const w = want as Record<string, unknown>;
  const g = got as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(w), ...Object.keys(g)])];
  if (!Array.isArray(want)) keys.sort();
  for (const key of keys) {
    if (!isDeepStrictEqual(w[key], g[key])) return firstDifference(w[key], g[key], `${pointer}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`);
  }
  return { pointer, want, got };
}

function outputValidator(tool: ToolIR): ValidateFunction | undefined {
  const schema = tool.wire.outputSchema;
  if (!schema) return undefined;
  const options = { allErrors: true, strict: false, validateSchema: false, logger: false } as const;
  const ajv = addFormats(tool.dialect === "2020-12" ? new Ajv2020(options) : new Ajv(options));
  return ajv.compile(schema);
}

const clip = (text: string | undefined, max = 200) => (text === undefined ? "nothing" : text.length > max ? `${text.slice(0, max)}…` : text);

/** A JSON-RPC client over a child's stdin/stdout, with a time limit per request. */
class LineClient {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();

  constructor(
    private readonly child: ServerChild,
    private readonly timeoutMs: number,
  ) {
    child.onLine((line) => this.receive(line));
    void child.exited.then((code) => this.failAll(`the server exited (${code}) before answering`));
  }

  request(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`no answer to ${method} within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.child.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  notify(method: string): void {
    this.child.send(JSON.stringify({ jsonrpc: "2.0", method }));
  }

  close(): void {
    this.failAll("the client closed");
  }

  private receive(line: string): void {
    let message: { id?: unknown; result?: unknown; error?: { code: number; message: string }; method?: unknown };
    try {
      message = JSON.parse(line) as typeof message;
    } catch {
      return;
    }
    if (message.method !== undefined || typeof message.id !== "number") return; // notifications, server→client requests
    const waiting = this.pending.get(message.id);
    if (!waiting) return;
    this.pending.delete(message.id);
    clearTimeout(waiting.timer);
    if (message.error) waiting.reject(new Error(`the call failed: ${message.error.code} ${message.error.message}`));
    else waiting.resolve(message.result);
  }

  private failAll(reason: string): void {
    for (const [id, waiting] of this.pending) {
      this.pending.delete(id);
      clearTimeout(waiting.timer);
      waiting.reject(new Error(reason));
    }
  }
}
