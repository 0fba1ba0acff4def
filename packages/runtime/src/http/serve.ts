/**
 * `serve()` as the package's entry point exports it: the `node:http` adapter (node.ts), the transport and
 * `node:http` itself load with its first call, not with the package, which a handler module importing
 * `ToolError` loads into every server, stdio ones included (see index.ts).
 */
import type { Server } from "../server.js";
import type { HttpServerHandle, ServeOptions } from "./node.js";

export async function serve(server: Server, options?: ServeOptions): Promise<HttpServerHandle> {
  const adapter = await import("./node.js");
  return adapter.serve(server, options);
}
