/**
 * The modules compile threads run (parallel.ts), found beside the file this code runs from: its own
 * worker.ts and types-worker.ts in dist/, and in the CLI's bundle the bundled copies of them, which
 * scripts/bundle.mjs writes beside its files (and leaves this module's `import.meta.url` as it is).
 */
export type ThreadModule = "worker" | "types-worker";

export const threadModule = (name: ThreadModule): URL => new URL(`./${name}.js`, import.meta.url);
