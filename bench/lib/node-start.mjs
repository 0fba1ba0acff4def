/**
 * Node reads the certificate file NODE_EXTRA_CA_CERTS names at every start, before any script runs: ~40 ms on
 * a machine that sets it (`node -e 0`: ~61 ms with it, ~23 ms without, on the machine of BENCHMARKS.md). Every
 * process a benchmark starts pays it, so it is in a cold start and in a build's process time, and not theirs.
 * `BARE_ENV` is this process's environment without it, for measuring once more without it; undefined when it
 * is not set (there is nothing to take away).
 */
export const BARE_ENV =
  process.env.NODE_EXTRA_CA_CERTS === undefined ? undefined : Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== "NODE_EXTRA_CA_CERTS"));
