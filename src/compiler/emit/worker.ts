/** A compile worker: compiles one share of the tools and type units (see parallel.ts). */
import { parentPort, workerData } from "node:worker_threads";
import { compileInWorker, type WorkerBatch } from "./parallel.js";

parentPort!.postMessage(await compileInWorker(workerData as WorkerBatch));
