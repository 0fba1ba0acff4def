/**
 * The stdio transport: newline-delimited JSON-RPC on a pair of streams, an adapter around the core.
 * Backpressure: while the output is congested (`write()` returned false) input is paused, so a slow reader
 * cannot make the server buffer without bound — at most the answers to one input chunk are pending. The
 * number of requests in flight is deliberately not capped by pausing: input must keep flowing so that
 * `notifications/cancelled` reaches handlers that hang.
 */
import type { Readable, Writable } from "node:stream";
import { errorResponse, logInternalError } from "./errors.js";
import { MessageParser } from "./json.js";
import { Pending } from "./pending.js";
import { settledWithin } from "./connection.js";
import type { Server } from "./server.js";
import { keepTickEntry } from "./ticks.js";

export interface StdioOptions {
  /** Default `process.stdin`. */
  input?: Readable;
  /** Default `process.stdout`. Only protocol messages are ever written to it. */
  output?: Writable;
  /**
   * The shutdown grace (default 1000 ms): at end of input, how long requests in flight may still finish
   * before they are cancelled; on `close()`, how long cancelled handlers may take to wind down.
   */
  graceMs?: number;
  /** A line longer than this (in UTF-16 code units) is dropped with an error (default 64 MiB). */
  maxLineLength?: number;
}

export interface StdioSession {
  /** Resolves once the session has ended (input ended or `close()` was called) and output is flushed. */
  readonly closed: Promise<void>;
  /** Stops reading, cancels the requests in flight and resolves after the grace period and a flush. */
  close(): Promise<void>;
}

export function serveStdio(server: Server, options: StdioOptions = {}): StdioSession {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const graceMs = options.graceMs ?? 1000;
  const maxLineLength = options.maxLineLength ?? 64 * 1024 * 1024;
  keepTickEntry();

  let congested = false;
  let drained: Promise<void> | undefined;
  let releaseDrained: (() => void) | undefined;
  let closing: Promise<void> | undefined;
  let partial = "";
  let oversized = false;

  // Messages produced together leave in one write (pipelined calls cost far less). What an input chunk
  // answers at once leaves at the end of the chunk, and the last answer still pending takes everything
  // waiting with it. Anything else (answers while others are pending, a handler's notifications) leaves on
  // process.nextTick: scheduled from a promise reaction it runs once the microtask queue is empty, so the
  // answers of a chunk that settle without I/O still go out together. A batch reaching the output's
  // high-water mark is flushed at once, so congestion shows up early and a handler looping on
  // ctx.progress() meets backpressure.
  // The messages waiting, each followed by a newline: one string built by concatenation, flattened once by
  // the write (an array joined copied every message once more).
  let batch = "";
  /** Inside `onData`: its end flushes. */
  let reading = false;
  const batchLimit = output.writableHighWaterMark || 16_384;
  const queue = (message: string): boolean => {
    const first = batch === "";
    batch += message + "\n";
    if (batch.length < batchLimit) return first;
    flushBatch();
    return false;
  };
  const write = (message: string): void | Promise<void> => {
    if (queue(message) && !reading) process.nextTick(flushBatch);
    return drained;
  };
  const flushBatch = (): void => {
    if (batch === "") return;
    const chunk = batch;
    batch = "";
    if (output.write(chunk) || congested) return;
    congested = true;
    drained = new Promise((resolve) => (releaseDrained = resolve));
    output.once("drain", onDrain);
    updateFlow();
  };
  const onDrain = (): void => {
    congested = false;
    drained = undefined;
    releaseDrained?.();
    updateFlow();
  };
  const connection = server.connect({ send: write });
  const parser = new MessageParser();
  // Requests still being answered: at end of input each gets the grace, including one whose handler module
  // is still loading (not yet in the connection's in-flight set). A count, not a set of promises: tracking
  // each answer cost every call two more promises.
  let answering = 0;
  let allAnswered: (() => void) | undefined;
  const answered = (): void => {
    if (--answering === 0) allAnswered?.();
  };

  const updateFlow = (): void => {
    if (closing) return;
    if (congested) input.pause();
    else if (input.isPaused()) input.resume();
  };
  const reply = (response: string | undefined): void => {
    if (answering === 1) {
      // The last answer pending: it leaves now, with whatever waits, instead of on the next tick.
      if (response !== undefined) queue(response);
      flushBatch();
    } else if (response !== undefined) write(response);
    answered();
  };
  const crash = (error: unknown): void => {
    // Only a bug in the runtime lands here; the client still gets an answer-shaped error.
    logInternalError(error);
    write(errorResponse(undefined, "internalError"));
  };
  const crashed = (error: unknown): void => {
    crash(error);
    answered();
  };

  const onLine = (line: string): void => {
    if (line.charCodeAt(line.length - 1) === 0x0d /* \r */) line = line.slice(0, -1);
    if (line.length === 0 || (line.charCodeAt(0) <= 0x20 && line.trim() === "")) return; // blank
    let message: unknown;
    try {
      message = parser.parse(line);
    } catch (error) {
      write(errorResponse(undefined, "parseError", `Parse error: ${(error as Error).message}`));
      return;
    }
    let response: ReturnType<typeof connection.handle>;
    try {
      response = connection.handle(message);
    } catch (error) {
      crash(error); // the core catches its own failures; this keeps the loop alive should one slip through
      return;
    }
    if (typeof response === "string") write(response);
    else if (response !== undefined) {
      answering++;
      if (response instanceof Pending) response.whenAnswered(reply);
      else void response.then(reply, crashed);
    }
  };

  const onData = (chunk: string): void => {
    reading = true;
    try {
      readLines(chunk);
    } finally {
      reading = false;
      if (answering === 0) flushBatch();
      else if (batch !== "") process.nextTick(flushBatch);
    }
  };
  const readLines = (chunk: string): void => {
    let start = 0;
    let newline: number;
    while ((newline = chunk.indexOf("\n", start)) !== -1) {
      const piece = chunk.slice(start, newline);
      start = newline + 1;
      if (oversized) {
        oversized = false; // the rest of a dropped line
      } else {
        onLine(partial === "" ? piece : partial + piece);
      }
      partial = "";
    }
    if (oversized) return;
    partial += chunk.slice(start);
    if (partial.length > maxLineLength) {
      partial = "";
      oversized = true;
      write(errorResponse(undefined, "invalidRequest", `Invalid Request: message longer than ${maxLineLength} characters`));
    }
  };

  let finished: () => void;
  const closed = new Promise<void>((resolve) => (finished = resolve));

  /** `drain`: end of input lets requests in flight finish (within the grace); close() cancels them at once. */
  const shutDown = (drain: boolean): Promise<void> => {
    closing ??= (async () => {
      input.off("data", onData);
      input.off("end", onEnd);
      input.pause();
      if (drain) {
        if (answering > 0) await settledWithin([new Promise<void>((resolve) => (allAnswered = resolve))], graceMs);
        await new Promise((resolve) => setImmediate(resolve)); // let the last responses be written
      }
      await connection.close(drain ? 0 : graceMs);
      flushBatch();
      await flush(output, graceMs); // bounded: a reader that stopped reading cannot hold us forever
      finished();
    })();
    return closing;
  };
  const close = (): Promise<void> => shutDown(false);
  const onEnd = (): void => {
    if (partial !== "" && !oversized) onLine(partial); // a last message without its newline
    partial = "";
    void shutDown(true);
  };

  input.setEncoding("utf8");
  input.on("data", onData);
  input.on("end", onEnd);
  input.on("error", onEnd);
  output.on("error", () => void close()); // EPIPE: the client went away
  return { closed, close };
}

/** Resolves when everything written so far has been handed on (or the stream is gone, or `ms` passed). */
function flush(output: Writable, ms: number): Promise<void> {
  if (output.destroyed || output.writableEnded || output.writableLength === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref?.();
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    output.write("", done);
    output.once("error", done);
  });
}

