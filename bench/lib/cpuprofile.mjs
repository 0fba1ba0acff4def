/** Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): self time by package and function, inclusive time. */
import { readFileSync } from "node:fs";

/** `node_modules/<pkg>` → pkg; mcpgen's own dist files by path; V8's pseudo-frames by name. */
function owner(frame, noFile) {
  const url = frame.url;
  if (!url) return /^\(/.test(frame.functionName) ? frame.functionName : noFile;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1];
  const ours = /\/dist\/(.+)$/.exec(url);
  if (ours) return `mcpgen ${ours[1]}`;
  if (url.startsWith("node:")) return "node internals";
  return url.split("/").slice(-2).join("/");
}

/** `noFile` names frames without a script: natives, and (in a build) code ajv compiles at run time. */
export function summarize(file, { top = 15, noFile = "(no file: code compiled by ajv at build time, natives)" } = {}) {
  const frameName = (frame) => `${frame.functionName || "(anonymous)"} ${owner(frame, noFile)}:${frame.lineNumber + 1}`;
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const add = (map, key, ms) => map.set(key, (map.get(key) ?? 0) + ms);

  const byOwner = new Map();
  const bySelf = new Map();
  const inclusive = new Map();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    total += ms;
    const node = nodes.get(id);
    add(byOwner, owner(node.callFrame, noFile), ms);
    add(bySelf, frameName(node.callFrame), ms);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const key = frameName(nodes.get(at).callFrame);
      if (!seen.has(key)) seen.add(key), add(inclusive, key, ms);
    }
  });
  const sorted = (map, filter = () => true) =>
    [...map]
      .filter(([k]) => filter(k))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, ms]) => ({ name, ms: Math.round(ms) }));
  return {
    totalMs: Math.round(total),
    // Time the process was on a CPU (the sampled total less V8's `(idle)` pseudo-frame): what % are of.
    busyMs: Math.round(total - (bySelf.get("(idle) (idle):0") ?? byOwner.get("(idle)") ?? 0)),
    byOwner: sorted(byOwner, (k) => k !== "(idle)"),
    selfTop: sorted(bySelf, (k) => !k.startsWith("(idle)")),
    // Inclusive time of mcpgen's own functions (async continuations count where they resume).
    inclusiveMcpgen: sorted(inclusive, (k) => / mcpgen /.test(k) && !/^\(anonymous\)/.test(k)),
  };
}

/**
 * Self time of the frames whose name matches `pattern`, by the chain of callers above them (`depth` frames):
 * where a hot built-in is called from.
 */
export function callers(file, pattern, { depth = 5, top = 10, noFile = "(natives: V8 builtins, syscalls)" } = {}) {
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (frame) => `${frame.functionName || "(anonymous)"} ${owner(frame, noFile)}:${frame.lineNumber + 1}`;
  const chains = new Map();
  profile.samples.forEach((id, i) => {
    if (!pattern.test(name(nodes.get(id).callFrame))) return;
    const chain = [];
    for (let at = id; at !== undefined && chain.length <= depth; at = parent.get(at)) chain.push(name(nodes.get(at).callFrame));
    const key = chain.join(" ← ");
    chains.set(key, (chains.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return [...chains].sort((a, b) => b[1] - a[1]).slice(0, top).map(([chain, ms]) => ({ chain, ms: Math.round(ms) }));
}

// `node bench/lib/cpuprofile.mjs <file.cpuprofile> [--callers <regexp>]`: the summary, or where matching frames are called from.
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop()) && process.argv[2]) {
  const at = process.argv.indexOf("--callers");
  const result = at === -1 ? summarize(process.argv[2], { top: 25, noFile: "(natives: V8 builtins, syscalls)" }) : callers(process.argv[2], new RegExp(process.argv[at + 1]));
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
