/**
 * The command line of the in-process benchmarks (bench/stdio/in-process.mjs, bench/http/in-process.mjs):
 * `[--runs N] [--batches N] [--alloc] [--no-pin] [--json]`. An unknown argument, or a count that is not a positive
 * integer, ends the process with exit code 2 and says why, prefixed with `prefix`, and how to call it.
 */
export function inProcessOptions(args, { prefix, usage, batches }) {
  const counted = ["--runs", "--batches"];
  const known = new Set([...counted, "--alloc", "--no-pin", "--json"]);
  const fail = (message) => {
    process.stderr.write(`${prefix}: ${message}\n${usage}\n`);
    process.exit(2);
  };
  const unknown = args.find((arg, i) => (arg.startsWith("--") ? !known.has(arg) : !counted.includes(args[i - 1])));
  if (unknown !== undefined) fail(`unknown argument ${unknown}`);
  const count = (name, fallback) => {
    const value = Number(args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
    if (!Number.isInteger(value) || value < 1) fail(`${name} takes a positive integer`);
    return value;
  };
  return { runs: count("--runs", 3), batches: count("--batches", batches), alloc: args.includes("--alloc"), pin: !args.includes("--no-pin"), json: args.includes("--json") };
}
