/**
 * The server of an MCP Bundle: the compiled entry and everything it imports, bundled with esbuild into
 * `server/`, so that the .mcpb needs nothing but `node`. Start-up reads one file, `server/index.mjs`: the
 * entry, the runtime's main module and the registry. Each module the server imports dynamically (a tool's
 * handler and validators on its first call, the runtime's lazily loaded parts) is a file of `server/lazy/`,
 * which Node reads only when it is asked for.
 *
 * Two builds make that. Bundled in one build with code splitting, the runtime's main module, which the
 * entry imports and so do the handlers (`ToolError`), went into a chunk of its own beside the entry: three
 * files at start-up (~1.5 ms more than one). Bundled without splitting, the whole server was one file that
 * Node parses at every start (100 tools: 2.5 MiB, a cold start of 57 ms against 32).
 * 1. `index.mjs` holds the entry's static imports. Each dynamic `import()` there is left as an import of
 *    the file the second build writes for its module. It also exports what the runtime's main module
 *    exports, for the second build to import from it. The entry itself is imported dynamically (esbuild
 *    keeps it in the same file): its top-level `await main(registry)` lasts as long as the server serves,
 *    and a module importing a module still evaluating would wait for it.
 * 2. `lazy/` holds those dynamically imported modules, split into files with what they share in chunks.
 *    An import of the runtime's main module is an import of `../index.mjs`, so each class exists once.
 * Should the two builds hold another module each (a custom entry importing a module its handlers import
 * too), the server is bundled the first way instead, where every module exists once whatever imports it.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import type { BuildOptions, BuildResult, Metafile, OutputFile, Plugin } from "esbuild";
import { OutputError } from "../compiler/write.js";
import { BUNDLE_ENTRY } from "./mcpb.js";

/** The folder of `server/` that holds what the server loads lazily. */
const LAZY = "lazy";
/** Marks the resolution a plugin asks esbuild for, so that the plugin does not answer it itself. */
const INNER = Symbol("inner");
/** The module that the first build starts from (a namespace of the plugin's own). */
const START = "mcpgen-start";
/** The stand-in the second build imports the runtime's main module through. */
const PROXY = "mcpgen-main";

export interface ServerFiles {
  /** Path inside the .mcpb (`server/index.mjs`, `server/lazy/…`) → contents, in path order. */
  files: Map<string, Uint8Array>;
  /** Source files bundled. */
  inputs: number;
}

type Esbuild = typeof import("esbuild");

/** Bundles the compiled server entry `entry` (`shown` in messages) of the project at `cwd`. */
export async function bundleServer(entry: string, shown: string, cwd: string): Promise<ServerFiles> {
  // Loaded here: esbuild is needed by this command only.
  const esbuild = await import("esbuild");
  try {
    return (await startupInOneFile(esbuild, entry, cwd)) ?? (await splitOnce(esbuild, entry, cwd));
  } catch (error) {
    const errors = (error as { errors?: { text: string; location?: { file: string; line: number } | null }[] }).errors;
    if (!errors) throw error;
    const detail = errors.map((e) => `  ${e.location ? `${e.location.file}:${e.location.line}: ` : ""}${e.text}`).join("\n");
    throw new OutputError(`bundling ${shown} failed:\n${detail}`);
  }
}

function options(cwd: string): BuildOptions & { write: false; metafile: true } {
  return {
    absWorkingDir: cwd,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    write: false,
    metafile: true,
    logLevel: "silent",
    outExtension: { ".js": ".mjs" },
  };
}

/**
 * What a file using `require` starts with: CommonJS dependencies bundled into ESM may still call it for
 * Node built-ins. Only those files get it: making a `require` took ~1 ms of a server's start-up.
 */
const REQUIRE = 'import { createRequire as __mcpgenCreateRequire } from "node:module";\nconst require = __mcpgenCreateRequire(import.meta.url);\n';
const withRequire = (code: Uint8Array): Uint8Array => {
  const text = Buffer.from(code).toString("utf8");
  return /\brequire\b/.test(text) ? Buffer.from(REQUIRE + text) : code;
};

/** The two builds of the file comment; undefined when they would both hold a module. */
async function startupInOneFile(esbuild: Esbuild, entry: string, cwd: string): Promise<ServerFiles | undefined> {
  const server = path.join(cwd, path.dirname(BUNDLE_ENTRY));
  /** Dynamically imported module → its file in `lazy/`, named after it (and its path, so names never clash). */
  const lazy = new Map<string, string>();
  let main: string | undefined;
  const first: Plugin = {
    name: "mcpgen-startup",
    setup(build) {
      build.onResolve({ filter: new RegExp(`^${START}$`) }, () => ({ path: entry, namespace: START }));
      build.onLoad({ filter: /.*/, namespace: START }, async () => {
        const runtime = await build.resolve("@mcpgen/runtime/main", { kind: "import-statement", resolveDir: path.dirname(entry), pluginData: INNER });
        main = runtime.errors.length ? undefined : runtime.path;
        const reExport = main === undefined ? "" : `export * from ${JSON.stringify(main)};\n`;
        return { contents: `${reExport}import(${JSON.stringify(entry)});\n`, resolveDir: path.dirname(entry), loader: "js" };
      });
      // Not an async function: only dynamic imports wait for a resolution (esbuild's output then comes out
      // the same at every run).
      build.onResolve({ filter: /.*/ }, (args) => {
        if (args.pluginData === INNER || args.kind !== "dynamic-import" || args.namespace === START) return undefined;
        return build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: INNER }).then((resolved) => {
          if (resolved.errors.length || resolved.external) return undefined;
          let name = lazy.get(resolved.path);
          if (name === undefined) lazy.set(resolved.path, (name = lazyName(cwd, resolved.path)));
          return { path: `./${LAZY}/${name}.mjs`, external: true };
        });
      });
    },
  };
  const startup = await esbuild.build({ ...options(cwd), entryPoints: [START], outfile: path.join(cwd, BUNDLE_ENTRY), plugins: [first] });
  const names = Object.values(startup.metafile.outputs)[0]?.exports ?? [];

  const second: Plugin = {
    name: "mcpgen-lazy",
    setup(build) {
      // The runtime's other modules import it by its path (a handler imports them by the package's name).
      // Decided without waiting for a resolution, so that esbuild's output comes out the same at every run.
      build.onResolve({ filter: /^(\.\.?\/)+main\.js$/ }, (args) => (path.resolve(args.resolveDir, args.path) === main ? { path: "main", namespace: PROXY } : undefined));
      build.onResolve({ filter: /.*/, namespace: PROXY }, (args) => ({ path: args.path, external: true }));
      const from = JSON.stringify(`../${path.basename(BUNDLE_ENTRY)}`);
      build.onLoad({ filter: /.*/, namespace: PROXY }, () => ({ contents: `export { ${names.join(", ")} } from ${from};\n`, loader: "js" }));
    },
  };
  const parts = lazy.size
    ? await esbuild.build({
        ...options(cwd),
        // In name order: esbuild's output follows the order of its entry points, which the first build's
        // resolutions, run concurrently, do not fix.
        entryPoints: Object.fromEntries([...lazy].map(([file, name]) => [name, file] as const).sort(([a], [b]) => (a < b ? -1 : 1))),
        splitting: true,
        outdir: path.join(server, LAZY),
        chunkNames: "chunk-[hash]",
        plugins: [second],
      })
    : undefined;
  const held = sources(startup.metafile);
  if (parts && [...sources(parts.metafile)].some((file) => held.has(file))) return undefined;
  return collect(server, [startup, ...(parts ? [parts] : [])]);
}

/** One build with code splitting: every module once, the runtime's main module in a chunk of its own. */
async function splitOnce(esbuild: Esbuild, entry: string, cwd: string): Promise<ServerFiles> {
  const server = path.join(cwd, path.dirname(BUNDLE_ENTRY));
  const result = await esbuild.build({
    ...options(cwd),
    entryPoints: { [path.basename(BUNDLE_ENTRY, ".mjs")]: entry },
    splitting: true,
    outdir: server,
    chunkNames: `${LAZY}/chunk-[hash]`,
  });
  return collect(server, [result]);
}

/** A lazily loaded module's file name: its own, and a digest of its path in the project. */
function lazyName(cwd: string, file: string): string {
  const where = path.relative(cwd, file).split(path.sep).join("/");
  const digest = createHash("sha256").update(where).digest("hex").slice(0, 8);
  return `${path.basename(file).replace(/\.[cm]?[jt]sx?$/, "").replace(/[^\w.-]/g, "_")}-${digest}`;
}

/** The files the builds hold, as paths of the project (the plugins' own modules left out). */
function sources(metafile: Metafile): Set<string> {
  return new Set(Object.keys(metafile.inputs).filter((input) => !/^[\w-]+:/.test(input)));
}

function collect(server: string, builds: BuildResult<{ write: false; metafile: true }>[]): ServerFiles {
  const inside = (file: OutputFile) => `${path.dirname(BUNDLE_ENTRY)}/${path.relative(server, file.path).split(path.sep).join("/")}`;
  const files = builds.flatMap((build) => build.outputFiles.map((file) => [inside(file), withRequire(file.contents)] as const));
  const inputs = new Set(builds.flatMap((build) => [...sources(build.metafile)]));
  return { files: new Map(files.sort(([a], [b]) => (a < b ? -1 : 1))), inputs: inputs.size };
}
