/**
 * A thread compiling type units alone, then checking the examples it is handed (see `typesThread`,
 * parallel.ts): it loads json-schema-to-typescript, not ajv.
 */
import { parentPort, workerData } from "node:worker_threads";
import { MemoryCache } from "../cache.js";
import type { Diagnostic } from "../diagnostics.js";
import type { TypeUnit } from "../normalize.js";
import { checkExamples, claimed } from "./examples.js";
import type { TypesThreadData, TypesThreadMessage, TypesThreadResult } from "./parallel.js";
import type { Code } from "./render.js";
import { emitTypeUnit } from "./types.js";

const { units, claims } = workerData as TypesThreadData;
const cache = new MemoryCache();
const types: Code[] = [];
for (const { name, digest, schema } of units) {
  const unit: TypeUnit = { name, digest, schema: () => schema };
  types.push((await emitTypeUnit(unit, cache))!);
}
const checked: [number, Diagnostic[]][] = [];
parentPort!.on("message", (message: TypesThreadMessage) => {
  if (message !== "done") {
    if (claimed(claims, message.index)) checked.push([message.index, checkExamples(message.examples)]);
    return;
  }
  parentPort!.postMessage({ types, checked, entries: [...cache.entries] } satisfies TypesThreadResult & { entries: [string, string][] });
});
