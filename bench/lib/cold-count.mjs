/**
 * Preloaded (`node --import`) into each server whose cold start bench/instructions.mjs counts, the same for
 * every peer, so that the count ends where bench/run.mjs's cold start ends:
 * - the process exits as soon as it has written the answer to `tools/list` (id 2), which it also copies to
 *   file descriptor 3 for the benchmark to check; the end of input and shutting down are not a cold start;
 * - timers set before then never fire. Valgrind runs a process ~30× slower, so work a server defers until
 *   start-up is over (the runtime's `START_UP_MS`, 50 ms) would run before the list is answered, which it
 *   does not do natively.
 */
import { writeSync } from "node:fs";

const idle = { ref: () => idle, unref: () => idle, hasRef: () => false, refresh: () => idle, close: () => idle };
// Object.assign rather than assignments, which TypeScript's check of JavaScript reads as new global declarations.
Object.assign(globalThis, { setTimeout: () => idle, setInterval: () => idle });

const stdout = process.stdout;
const write = stdout.write;
stdout.write = function (chunk, ...rest) {
  const written = write.call(this, chunk, ...rest);
  const text = String(chunk);
  if (text.includes('"id":2,')) {
    writeSync(3, text);
    process.exit(0);
  }
  return written;
};
