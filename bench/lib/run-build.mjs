/**
 * One measured build, in a fresh process (spawned by bench/build.mjs). argv[2]: the `build()` options as
 * JSON; argv[3], optional: the compiler to run, as the path of another checkout's `dist/compiler/index.js`
 * (`--against`), else this one's (`mcpgen`). Prints one JSON line: import and build times, peak RSS, and
 * what the build reported.
 */
const startedMs = performance.now(); // ms since this process started
const { build } = await import(process.argv[3] ? (await import("node:url")).pathToFileURL(process.argv[3]).href : "mcpgen");
const importedMs = performance.now();
const options = JSON.parse(process.argv[2]);
try {
  const result = await build(options);
  const doneMs = performance.now();
  process.stdout.write(
    JSON.stringify({
      // Node's own start-up, before this script ran.
      nodeStartMs: startedMs,
      // Loading the compiler and its dependencies (ajv, json-schema-to-typescript, handlebars, ...).
      importMs: importedMs - startedMs,
      buildMs: doneMs - importedMs,
      // CPU time of the whole process (user + system, all threads): steadier than wall time on a busy machine.
      cpuMs: (process.resourceUsage().userCPUTime + process.resourceUsage().systemCPUTime) / 1000,
      // KiB, the whole process's peak.
      maxRSSKiB: process.resourceUsage().maxRSS,
      tools: result.counts.tools,
      updated: result.mode === "write" ? result.updated.length : undefined,
      updatedSample: result.mode === "write" ? result.updated.slice(0, 5) : undefined,
      removed: result.mode === "write" ? result.removed.length : undefined,
      createdHandlers: result.mode === "write" ? result.createdHandlers.length : undefined,
    }) + "\n",
  );
} catch (error) {
  process.stderr.write(`${error.name}: ${String(error.message).split("\n").slice(0, 20).join("\n")}\n`);
  process.exit(1);
}
