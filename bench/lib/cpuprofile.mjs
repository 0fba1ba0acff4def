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
    byOwner: sorted(byOwner),
    selfTop: sorted(bySelf),
    // Inclusive time of mcpgen's own functions (async continuations count where they resume).
    inclusiveMcpgen: sorted(inclusive, (k) => / mcpgen /.test(k) && !/^\(anonymous\)/.test(k)),
  };
}
