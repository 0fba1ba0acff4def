/**
 * Peer: mcpgen's example server (built by bench/stdio/setup.mjs) behind `serve()` from mcpgen/runtime.
 *   node mcpgen.mjs <example's generated/server.gen.js> [--mode json|sse] [--idle-ms N]
 * --idle-ms   the server's `sessionIdleMs` (default: the runtime's, 30 minutes)
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import v8 from "node:v8";
import { createServer, serve } from "@mcpgen/runtime";
import { tuneHeap } from "@mcpgen/runtime/main";
import { flag, ready } from "./common.mjs";

// What the shipped entry (`server.gen.js --http`, through the runtime's main()) does, so that this peer runs
// with the same V8 heap sizing as the server users start.
tuneHeap(v8);

const entry = process.argv[2];
const { registry } = await import(pathToFileURL(path.join(path.dirname(entry), "registry.gen.js")).href);
const mode = flag("--mode") ?? "json";
const idleMs = flag("--idle-ms");
const handle = await serve(createServer(registry), {
  port: 0,
  responseMode: mode,
  maxSessions: 1_000_000,
  eventStore: false,
  ...(idleMs !== undefined && { sessionIdleMs: Number(idleMs) }),
});
ready(handle.url);
