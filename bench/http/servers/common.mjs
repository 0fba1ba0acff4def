/**
 * What every HTTP peer does besides serving: print `READY <url>` on stdout once listening, and answer `gc`
 * lines on stdin (run a full GC when --expose-gc is on, then print `MEM <json of process.memoryUsage()>`), so
 * that the benchmark can measure memory per idle session the same way for every peer.
 */
export function ready(url) {
  process.stdout.write(`READY ${url}\n`);
  let partial = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => {
    const lines = (partial + chunk).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      if (line.trim() !== "gc") continue;
      globalThis.gc?.();
      globalThis.gc?.();
      process.stdout.write(`MEM ${JSON.stringify(process.memoryUsage())}\n`);
    }
  });
  process.stdin.on("end", () => process.exit(0));
}

export function flag(name) {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}
