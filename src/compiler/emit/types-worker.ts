/** A thread compiling type units alone (see `typesInWorker`, parallel.ts): it loads json-schema-to-typescript, not ajv. */
import { parentPort, workerData } from "node:worker_threads";
import { MemoryCache } from "../cache.js";
import type { TypeUnit } from "../normalize.js";
import type { WorkerBatch } from "./parallel.js";
import { emitTypeUnit } from "./types.js";

const cache = new MemoryCache();
const types = [];
for (const { name, digest, schema } of (workerData as WorkerBatch).units) {
  const unit: TypeUnit = { name, digest, schema: () => schema };
  types.push((await emitTypeUnit(unit, cache))!);
}
parentPort!.postMessage({ types, entries: [...cache.entries] });
