/**
 * Summarises a V8 heap snapshot (`v8.writeHeapSnapshot()`): self size and count by node type and constructor
 * or string, largest first. Enough to see what an idle session or a leak is made of.
 */
import { readFileSync } from "node:fs";

export function heapByConstructor(file, { top = 40 } = {}) {
  const { snapshot, nodes, strings } = JSON.parse(readFileSync(file, "utf8"));
  const fields = snapshot.meta.node_fields;
  const types = snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf("type");
  const nameAt = fields.indexOf("name");
  const sizeAt = fields.indexOf("self_size");
  const groups = new Map();
  let total = 0;
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + typeAt]];
    const size = nodes[i + sizeAt];
    total += size;
    // Strings and code are grouped by type; objects, closures and arrays by constructor or name.
    const name = type === "object" || type === "closure" || type === "native" ? `${type} ${strings[nodes[i + nameAt]].slice(0, 60)}` : type;
    const group = groups.get(name) ?? { name, bytes: 0, count: 0 };
    group.bytes += size;
    group.count++;
    groups.set(name, group);
  }
  return { totalBytes: total, top: [...groups.values()].sort((a, b) => b.bytes - a.bytes).slice(0, top) };
}
