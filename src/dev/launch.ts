/**
 * What a server child runs first (under tsx): it waits for its parent to name the server entry, then runs
 * it as `node <entry> <args>` would. `mcpgen dev` starts the next child this way ahead of time, so that
 * Node, tsx and the runtime are loaded before a change arrives and a restart costs only the registry and
 * the handlers (measured in bench/dev.mjs). The generated TypeScript is compiled by esbuild alone
 * (generated-hooks.ts), whose service process starts while the child waits.
 */
import { createRequire, register } from "node:module";
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
  register(new URL("./generated-hooks.js", import.meta.url), { data: { outDir } });
  // The runtime is the same for every build: load it while waiting (failing here is the entry's business).
  try {
    await import(pathToFileURL(createRequire(path.join(outDir, "server.gen.ts")).resolve("@mcpgen/runtime/main")).href);
  } catch {
    // reported when the entry imports it
  }
}
const go = await message;
process.channel?.unref();
process.argv = [process.argv[0]!, go.entry, ...go.args];
await import(pathToFileURL(go.entry).href);
