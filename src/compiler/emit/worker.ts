/** A compile worker: compiles one share of the tools and type units (see parallel.ts). */
import { parentPort, workerData } from "node:worker_threads";
import { compileBatch, type Batch } from "./parallel.js";

parentPort!.postMessage(await compileBatch(workerData as Batch));
