/**
 * Module loader hooks of a server child (registered by launch.ts after tsx's, so they run first): the
 * generated TypeScript, `*.gen.ts` in the output folder, compiled by esbuild alone. tsx compiles it with the
 * same esbuild, then rewrites each `import()` in it with a source map marking every word and merges that map
 * with esbuild's. The registry is mostly JSON text, so that was most of a restart: ~35 ms of tsx's loader
 * thread for the 7-tool example, ~350 ms for 1,000 tools. Generated code needs neither: what it imports
 * dynamically are ES modules (the validators, and the handlers of a project whose generated code runs as ES
 * modules at all), and a stack frame in it is rare.
 */
import { realpathSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { InitializeHook, LoadHook } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { transform } from "esbuild";

/** The output folder's URL, as given and with its links resolved (module URLs are of real paths). */
let outDirUrls: string[] = [];

/** `data.outDir`: the folder whose `*.gen.ts` files these hooks compile. Starts esbuild's service meanwhile. */
export const initialize: InitializeHook<{ outDir: string }> = (data) => {
  const dir = path.resolve(data.outDir);
  let real = dir;
  try {
    real = realpathSync(dir);
  } catch {
    // not there yet: known by the name given
  }
  outDirUrls = [...new Set([dir, real])].map((folder) => pathToFileURL(folder + path.sep).href);
  // A restart compiles the new registry at once: the service (a process of its own) is up by then.
  transform("", { loader: "ts" }).catch(() => {});
};

export const load: LoadHook = async (url, context, nextLoad) => {
  const file = url.split("?")[0] as string;
  if (!file.endsWith(".gen.ts") || !outDirUrls.some((dir) => file.startsWith(dir))) return nextLoad(url, context);
  const filename = fileURLToPath(file);
  const { code } = await transform(await readFile(filename, "utf8"), { loader: "ts", format: "esm", target: "node20", sourcefile: filename });
  return { format: "module", source: code, shortCircuit: true };
};
