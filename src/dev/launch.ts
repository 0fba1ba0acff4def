/**
 * What a server child runs first (under tsx): it waits for its parent to name the server entry, then runs
 * it as `node <entry> <args>` would. `mcpgen dev` starts the next child this way ahead of time, so that
 * Node, tsx and the runtime are loaded before a change arrives and a restart costs only the registry and
 * the handlers (measured in bench/dev.mjs). tsx compiles TypeScript with esbuild, whose service process
 * starts with the first module tsx has not compiled before: after an edit, the new registry. So the child
 * compiles a module of its own while it waits (a spare's restart: ~58 → ~48 ms to the first answer).
 */
import { rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

interface Go {
  entry: string;
  args: string[];
}

// A message that arrives before anyone listens is lost: listen, then tell the parent to go ahead.
const message = new Promise<Go>((resolve) => process.once("message", (value) => resolve(value as Go)));
process.send?.("listening");
const outDir = process.argv[2];
if (outDir) {
  // The runtime is the same for every build: load it while waiting (failing here is the entry's business).
  try {
    await import(pathToFileURL(createRequire(path.join(outDir, "server.gen.ts")).resolve("@mcpgen/runtime/main")).href);
  } catch {
    // reported when the entry imports it
  }
}
// tsx keeps what it compiled by content and path: a module that is new each time makes it start esbuild, and
// an ES module (`.mts`) does so where the entry's modules compile, in tsx's loader thread.
const warmUp = path.join(os.tmpdir(), `mcpgen-dev-${process.pid}-${Date.now()}.mts`);
try {
  writeFileSync(warmUp, `export const startedAt: number = ${Date.now()};\n`);
  await import(pathToFileURL(warmUp).href);
} catch {
  // only the first compile of the entry is slower
} finally {
  rmSync(warmUp, { force: true });
}
const go = await message;
process.channel?.unref();
process.argv = [process.argv[0]!, go.entry, ...go.args];
await import(pathToFileURL(go.entry).href);
