/**
 * Cold-start costs of a generated server, each in a fresh process (spawned by bench/build.mjs). Modes:
 *   one <validator.gen.js>      import one validator module and run it once
 *   all <validators dir>        import every validator module (what an eager registry would do)
 *   registry <registry.gen.js>  import the registry (transpiled to JS) and count the validator modules loaded,
 *                               at start-up and after the first tool's validators are asked for
 * Prints one JSON line.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [mode, target] = process.argv.slice(2);
const report = (fields) => {
  process.stdout.write(JSON.stringify({ ...fields, maxRSSKiB: process.resourceUsage().maxRSS }) + "\n");
};

if (mode === "one") {
  const t0 = performance.now();
  const validators = await import(pathToFileURL(target).href);
  const t1 = performance.now();
  const ok = validators.input({});
  const t2 = performance.now();
  report({ importMs: t1 - t0, firstCallMs: t2 - t1, sinceStartMs: t2, acceptsEmptyObject: ok });
} else if (mode === "all") {
  const files = readdirSync(target)
    .filter((f) => f.endsWith(".gen.js"))
    .sort();
  const t0 = performance.now();
  for (const f of files) await import(pathToFileURL(path.join(target, f)).href);
  const t1 = performance.now();
  report({ modules: files.length, importMs: t1 - t0, sinceStartMs: t1 });
} else if (mode === "registry") {
  const { register } = await import("node:module");
  const { MessageChannel } = await import("node:worker_threads");
  const { port1, port2 } = new MessageChannel();
  const loaded = new Set();
  port1.on("message", (url) => loaded.add(url));
  register(new URL("./count-loads.mjs", import.meta.url), { data: { port: port2 }, transferList: [port2] });
  // Messages from the hooks thread arrive asynchronously: give them a moment before counting.
  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

  const t0 = performance.now();
  const { registry } = await import(pathToFileURL(target).href);
  const t1 = performance.now();
  await settle();
  const atStartup = loaded.size;
  const first = registry.tools.find((t) => !t.hidden) ?? registry.tools[0];
  const t2 = performance.now();
  await first.validators();
  const t3 = performance.now();
  await settle();
  report({
    tools: registry.tools.length,
    registryImportMs: t1 - t0,
    loadedAtStartup: atStartup,
    firstValidatorsMs: t3 - t2,
    loadedAfterFirstCall: loaded.size,
  });
  port1.close();
} else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}
