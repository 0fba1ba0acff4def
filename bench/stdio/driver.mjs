/**
 * The one client driver used for every server, so the client's cost is the same whichever server it talks to:
 * raw newline-delimited JSON-RPC over the child's stdin/stdout, no SDK. Requests are built with template
 * strings; every response line is parsed with JSON.parse and checked.
 *
 *   spawnPeer(spec)          starts a server (`spec.command`, `spec.args`, `spec.cwd`); `peer.startedAt` is the
 *                            moment before spawn()
 *   peer.request(m, params)  one control request (handshake, cold start), resolved with its result
 *   closedLoop(peer, opts)   the measured phases: keeps `depth` requests in flight until `durationMs` has
 *                            passed (or `maxCalls` were sent), then waits for the rest; the answers to one read
 *                            are replaced in one write. Depth 1 is the sequential case.
 */
import { spawn } from "node:child_process";
import { cpuNs } from "../lib/proc.mjs";

export const PROTOCOL_VERSION = "2025-11-25";
export const MODERN_PROTOCOL_VERSION = "2026-07-28";
/**
 * The 2026-07-28 request envelope: no handshake, so protocol version, client info and client capabilities
 * travel in every request's `_meta` (the keys the 2026-07-28 schema reserves).
 */
export const MODERN_META = `"_meta":{"io.modelcontextprotocol/protocolVersion":"${MODERN_PROTOCOL_VERSION}","io.modelcontextprotocol/clientInfo":{"name":"mcpgen-bench","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}}`;
const SLOTS = 1 << 16; // send times by id; depth stays far below this

export function spawnPeer(spec) {
  return new Peer(spec);
}

class Peer {
  constructor({ command, args, cwd, env }) {
    this.startedAt = performance.now();
    this.child = spawn(command, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    this.pid = this.child.pid;
    this.nextId = 1;
    this.waiting = new Map(); // control requests: id → { resolve, reject }
    this.onResponse = undefined; // the phase's handler for numeric-id responses
    this.queue = [];
    this.dispatching = false;
    this.stderr = "";
    this.exited = new Promise((resolve) => this.child.once("exit", (code, signal) => resolve({ code, signal })));
    this.exited.then(({ code, signal }) => {
      const error = new Error(`server exited (${signal ?? code}) while requests were open; stderr:\n${this.stderr.slice(-2000)}`);
      for (const { reject } of this.waiting.values()) reject(error);
      this.waiting.clear();
      this.failure ??= error;
      this.onExit?.(error);
    });
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (s) => (this.stderr = (this.stderr + s).slice(-8192)));
    this.child.stdin.on("error", () => {}); // EPIPE after the server died: reported through `exited`
    let partial = "";
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk) => {
      this.dispatching = true;
      let start = 0;
      let newline;
      while ((newline = chunk.indexOf("\n", start)) !== -1) {
        const line = partial === "" ? chunk.slice(start, newline) : partial + chunk.slice(start, newline);
        partial = "";
        start = newline + 1;
        this.dispatch(line);
      }
      partial += chunk.slice(start);
      this.dispatching = false;
      this.flush();
    });
  }

  dispatch(line) {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      this.failure ??= new Error(`server wrote a line that is not JSON: ${line.slice(0, 200)}`);
      return;
    }
    const { id } = message;
    if (typeof id === "number") {
      if (this.onResponse) this.onResponse(message, id);
      else this.failure ??= new Error(`unexpected response ${line.slice(0, 200)}`);
      return;
    }
    const waiter = typeof id === "string" ? this.waiting.get(id) : undefined;
    if (waiter) {
      this.waiting.delete(id);
      if (message.error) waiter.reject(new Error(`${id}: ${JSON.stringify(message.error)}`));
      else waiter.resolve(message.result);
    }
    // Notifications (logging, list changes) are ignored.
  }

  /** Lines sent while a read is being handled leave together when it is done. */
  send(line) {
    this.queue.push(line);
    if (!this.dispatching) this.flush();
  }

  flush() {
    if (this.queue.length === 0) return;
    const chunk = this.queue.length === 1 ? `${this.queue[0]}\n` : `${this.queue.join("\n")}\n`;
    this.queue = [];
    this.child.stdin.write(chunk);
  }

  /** Control requests use string ids, so they never collide with a phase's numeric ids. */
  request(method, params) {
    const id = `c${this.nextId++}`;
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      this.waiting.set(id, { resolve, reject });
      this.send(JSON.stringify({ jsonrpc: "2.0", id, method, ...(params !== undefined && { params }) }));
    });
  }

  notify(method, params) {
    this.send(JSON.stringify({ jsonrpc: "2.0", method, ...(params !== undefined && { params }) }));
  }

  /** initialize → notifications/initialized, as every MCP client does; resolves with the initialize result. */
  async handshake() {
    const result = await this.request("initialize", {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: "mcpgen-bench", version: "1.0.0" },
    });
    this.notify("notifications/initialized");
    return result;
  }

  /** Ends stdin (a clean shutdown for every peer); kills the process if it has not exited after `ms`. */
  async close(ms = 1000) {
    this.child.stdin.end();
    let timer;
    const timeout = new Promise((resolve) => (timer = setTimeout(resolve, ms, "timeout")));
    const outcome = await Promise.race([this.exited, timeout]);
    clearTimeout(timer);
    if (outcome === "timeout") {
      this.child.kill("SIGKILL");
      await this.exited;
    }
  }
}

/**
 * One measured phase. `line(id)` builds a request; `check(message, id)` says whether its response is right.
 * Returns calls, wall time, server CPU (ns, from /proc), and the latency of every call (ms, in order of
 * completion). Rejects if a response was wrong, a line was not JSON, or the server exited.
 */
export function closedLoop(peer, { depth, durationMs, maxCalls = Infinity, line, check }) {
  return new Promise((resolve, reject) => {
    const sentAt = new Float64Array(SLOTS);
    let latencies = new Float64Array(1 << 16);
    let done = 0;
    let sent = 0;
    let wrong = 0;
    let firstWrong;
    let nextId = peer.nextNumericId ?? 1;
    const cpu0 = cpuNs(peer.pid);
    const t0 = performance.now();
    const deadline = t0 + durationMs;
    let sending = true;

    const sendOne = (now) => {
      const id = nextId++;
      sentAt[id & (SLOTS - 1)] = now;
      sent++;
      peer.send(line(id));
    };
    const finish = () => {
      const t1 = performance.now();
      const cpu1 = cpuNs(peer.pid);
      peer.onResponse = undefined;
      peer.onExit = undefined;
      peer.nextNumericId = nextId;
      if (peer.failure) return reject(peer.failure);
      if (wrong > 0) return reject(new Error(`${wrong} of ${done} responses were wrong, e.g. ${JSON.stringify(firstWrong).slice(0, 300)}`));
      resolve({ calls: done, ms: t1 - t0, cpuNs: cpu1 - cpu0, latencies: latencies.subarray(0, done) });
    };

    peer.onExit = reject;
    peer.onResponse = (message, id) => {
      const now = performance.now();
      if (done === latencies.length) {
        const bigger = new Float64Array(latencies.length * 2);
        bigger.set(latencies);
        latencies = bigger;
      }
      latencies[done++] = now - sentAt[id & (SLOTS - 1)];
      if (!check(message, id)) {
        wrong++;
        firstWrong ??= message;
      }
      if (sending && (now >= deadline || sent >= maxCalls)) sending = false;
      if (sending) sendOne(now);
      else if (done === sent) finish();
    };
    if (peer.failure) return reject(peer.failure);
    peer.dispatching = true; // the first `depth` requests leave in one write
    for (let i = 0; i < depth && i < maxCalls; i++) sendOne(t0);
    peer.dispatching = false;
    peer.flush();
  });
}

/** `tools/call add` with a = id, b = 0.5: the expected sum differs for every call. */
export const addCall = {
  line: (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"add","arguments":{"a":${id},"b":0.5}}}`,
  check: (message, id) => message.result?.structuredContent?.sum === id + 0.5 && message.result.isError !== true,
};

/** The same call in the 2026-07-28 era: the envelope in `_meta`, a `"resultType":"complete"` answer. */
export const modernAddCall = {
  line: (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"add","arguments":{"a":${id},"b":0.5},${MODERN_META}}}`,
  check: (message, id) => message.result?.resultType === "complete" && message.result.structuredContent?.sum === id + 0.5 && message.result.isError !== true,
};

/** `tools/call <name>` with fixed `args`, checked by `ok(result)`. */
export function toolCall(name, args, ok) {
  const params = `{"name":${JSON.stringify(name)},"arguments":${JSON.stringify(args)}}`;
  return {
    line: (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${params}}`,
    check: (message) => message.result !== undefined && message.result.isError !== true && ok(message.result),
  };
}

/**
 * The `search` workload: `list_tasks` over ten tasks tagged `bench` (seeded with `create_task` first), all ten
 * returned, so that mcpgen validates ten tasks of output.
 */
export const SEARCH_TASKS = 10;
export const SEARCH = { tag: "bench", limit: SEARCH_TASKS };
export const searchCall = toolCall("list_tasks", SEARCH, (result) => result.structuredContent?.total === SEARCH_TASKS);

/** `tools/list` (first page), checked for the expected number of tools. */
export function listCall(tools) {
  return {
    line: (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/list","params":{}}`,
    check: (message) => message.result?.tools?.length === tools,
  };
}
