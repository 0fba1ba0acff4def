/**
 * The tool-call runtime: what answers `tools/call` and `tasks/*` — the call pipeline (call.ts) with the
 * handler context (invocation.ts), and the task requests (tasks/requests.ts, tasks/run.ts). The method table
 * loads it with the first such request (or `Core.preload` before), so that a server answers `initialize`
 * and its lists without compiling it: a third of the code a stdio server starts with (BENCHMARKS.md).
 */
export { ToolCall } from "./call.js";
export { taskCall, taskRequest } from "./tasks/requests.js";
