/**
 * The expensive part of emit — ajv standalone code per tool and json-schema-to-typescript per type unit —
 * spread over worker threads for large servers. Each tool and unit compiles on its own (a fresh ajv per
 * tool), so the output is the same bytes whichever thread made it.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { MemoryCache, type Cache } from "../cache.js";
import type { Diagnostic } from "../diagnostics.js";
import type { TypeUnit } from "../normalize.js";
import type { Code } from "./render.js";
import { threadModule, type ThreadModule } from "./threads.js";
import { emitTypeUnit } from "./types.js";
import { checkExamples, claimed, type Examples } from "./examples.js";
import { compileModule, settle, type Compiled as CompiledModule, type Later, type Request } from "./validators.js";

export interface Batch {
  /** Validator modules to compile, each with its cache key. */
  modules: { request: Request; key: string }[];
  units: TypeUnit[];
}

export interface Compiled {
  validators: CompiledModule[];
  types: Code[];
}

export interface WorkerResult {
  compiled: Compiled;
  entries: [string, string][];
}

/** A batch as a worker thread gets it: each unit's schema made (a function does not cross threads). */
export interface WorkerBatch {
  modules: Batch["modules"];
  units: { name: string; digest: string; schema: ReturnType<TypeUnit["schema"]> }[];
}

/** In a worker thread: compiles `batch`, handing back the cache entries made. */
export async function compileInWorker(batch: WorkerBatch): Promise<WorkerResult> {
  const cache = new MemoryCache();
  const units = batch.units.map(({ name, digest, schema }): TypeUnit => ({ name, digest, schema: () => schema }));
  return { compiled: await compileBatch({ modules: batch.modules, units }, cache), entries: [...cache.entries] };
}

/** Below this many tools and units, starting threads costs more than it saves. */
const PARALLEL_FROM = 200;

/**
 * Compile threads when the caller does not say: one per CPU but one, which is left to V8's garbage
 * collector and compiler threads (on 2 CPUs, two compile threads measured 7–25% slower than one), at most 4.
 */
const defaultThreads = () => Math.max(1, Math.min(availableParallelism() - 1, 4));

export async function compileBatch({ modules, units }: Batch, cache: Cache): Promise<Compiled> {
  return {
    validators: modules.map(({ request, key }) => compileModule(request, cache, false, key)),
    types: await Promise.all(units.map(async (unit) => (await emitTypeUnit(unit, cache))!)),
  };
}

/**
 * Everything, from the cache where it can; what the cache lacks is compiled, in parallel if it is a lot
 * (or on `jobs` threads when given).
 */
export async function compileAll(batch: Batch, cache: Cache, jobs?: number): Promise<Compiled> {
  const validators = batch.modules.map(({ request, key }) => compileModule(request, cache, true, key));
  const types = await Promise.all(batch.units.map((unit) => emitTypeUnit(unit, cache, true)));
  const missing = (list: unknown[]) => list.flatMap((v, i) => (v === undefined ? [i] : []));
  const [toolMisses, unitMisses] = [missing(validators), missing(types)];
  const fresh = await compileMisses({ modules: toolMisses.map((i) => batch.modules[i]!), units: unitMisses.map((i) => batch.units[i]!) }, cache, jobs);
  toolMisses.forEach((i, j) => (validators[i] = fresh.validators[j]));
  unitMisses.forEach((i, j) => (types[i] = fresh.types[j]));
  return { validators: validators as CompiledModule[], types: types as Code[] };
}

async function compileMisses(batch: Batch, cache: Cache, jobs: number | undefined): Promise<Compiled> {
  const work = batch.modules.length + batch.units.length;
  const threads = Math.min(jobs ?? (work < PARALLEL_FROM ? 1 : defaultThreads()), work);
  if (threads < 2 && jobs === undefined && availableParallelism() >= 2 && Math.min(batch.modules.length, batch.units.length) >= PARALLEL_FROM) {
    // Started first: the validators then keep the main thread busy until they are all compiled.
    const thread = typesThread(batch.units, batch.modules.length, cache);
    const later: [number, Later][] = [];
    const validators = batch.modules.map(({ request, key }, i) =>
      compileModule(request, cache, false, key, { push: (examples) => (later.push([i, examples]), thread.check(i, examples)) }),
    );
    // The examples the thread has not come to yet are checked here, from the last.
    const checked = new Map<number, Diagnostic[]>();
    for (const [i, examples] of later.reverse()) if (thread.claim(i)) checked.set(i, checkExamples(examples));
    const done = await thread.done();
    for (const [i, diagnostics] of done.checked) checked.set(i, diagnostics);
    for (const [i, examples] of later) validators[i] = settle(examples, checked.get(i)!, cache);
    return { validators, types: done.types };
  }
  if (threads < 2) return compileBatch(batch, cache);
  // Round-robin shares balance large and small schemas; the main thread takes share 0.
  const share = <T>(list: T[], i: number) => list.filter((_, j) => j % threads === i);
  const parts = await Promise.all(
    Array.from({ length: threads }, (_, i) => {
      const part: Batch = { modules: share(batch.modules, i), units: share(batch.units, i) };
      return i === 0 ? compileBatch(part, cache) : inWorker(part, cache);
    }),
  );
  const merge = <T>(pick: (c: Compiled) => T[], length: number) =>
    Array.from({ length }, (_, j) => pick(parts[j % threads]!)[Math.floor(j / threads)]!);
  return { validators: merge((c) => c.validators, batch.modules.length), types: merge((c) => c.types, batch.units.length) };
}

/**
 * The type units on a thread of their own, while the main thread compiles the validators: what a large
 * build does on 2 CPUs, where one compile thread is the default (see `defaultThreads`). The two kinds of
 * work share nothing, and the thread loads json-schema-to-typescript alone, not ajv (types-worker.ts).
 * Once the types are made, the thread checks the examples of the validators the main thread has compiled
 * (`check`), which needs no ajv either, while the main thread compiles the rest. Each check is done once,
 * by the thread that claims it first: the main thread takes those the thread has not come to when the
 * validators are all compiled. A cold build of the 1,000-tool reference fixture: see BENCHMARKS.md, "Build speed".
 */
function typesThread(units: TypeUnit[], modules: number, cache: Cache) {
  const claims = new Int32Array(new SharedArrayBuffer(4 * modules));
  const workerData: TypesThreadData = { units: madeUnits(units), claims };
  const { worker, result } = onThread<TypesThreadResult>("types-worker", workerData, cache);
  return {
    check: (index: number, examples: Examples) => worker.postMessage({ index, examples } satisfies TypesThreadMessage),
    claim: (index: number) => claimed(claims, index),
    done: () => (worker.postMessage("done" satisfies TypesThreadMessage), result),
  };
}

export interface TypesThreadData {
  units: WorkerBatch["units"];
  /** Per validator module, 1 once a thread has taken its examples to check. */
  claims: Int32Array;
}
export type TypesThreadMessage = { index: number; examples: Examples } | "done";
export interface TypesThreadResult {
  types: Code[];
  /** Diagnostics of the examples the thread checked, by module. */
  checked: [number, Diagnostic[]][];
}

/** Compiles `batch` on a worker thread; the entries it made go into `cache`. */
function inWorker(batch: Batch, cache: Cache): Promise<Compiled> {
  const workerData: WorkerBatch = { modules: batch.modules, units: madeUnits(batch.units) };
  return onThread<WorkerResult>("worker", workerData, cache).result.then(({ compiled }) => compiled);
}

/** Each unit with its schema made: a function does not cross threads. */
function madeUnits(units: TypeUnit[]): WorkerBatch["units"] {
  return units.map((u) => ({ name: u.name, digest: u.digest, schema: u.schema() }));
}

/** Runs the worker module `name` on `workerData`; `result`: what it posts, once the cache entries it made are in `cache`. */
function onThread<T>(name: ThreadModule, workerData: unknown, cache: Cache): { worker: Worker; result: Promise<T> } {
  const worker = new Worker(threadModule(name), { workerData });
  const result = new Promise<T>((resolve, reject) => {
    worker.once("message", (result: T & { entries: [string, string][] }) => {
      for (const [key, value] of result.entries) cache.set(key, value);
      resolve(result);
      void worker.terminate();
    });
    worker.once("error", reject);
    worker.once("exit", (code) => code !== 0 && reject(new Error(`a compile worker exited with code ${code}`)));
  });
  return { worker, result };
}
