/**
 * The web-standard face of the HTTP transport: `fetch(Request) → Promise<Response>`, for any runtime with
 * the Fetch API (Node, Bun, Deno, Cloudflare Workers):
 *
 *   const mcp = createHttpHandler(createServer(registry));
 *   export default { fetch: mcp.fetch };            // Workers / Bun / Deno.serve(mcp.fetch)
 */
import type { Server } from "../server.js";
import { BodyError, type HttpInput, type HttpStats } from "./input.js";
import { resolveHttpOptions, type HttpOptions } from "./options.js";
import type { HttpOutput } from "./output.js";
import type { HttpTransport } from "./transport.js";

export interface HttpHandler {
  /** Answers one request. */
  fetch(request: Request): Promise<Response>;
  /** Closes every session and stream (requests in flight are cancelled); later requests get 503. */
  close(): Promise<void>;
  /** Sessions and streams held right now. */
  readonly stats: HttpStats;
}

/**
 * The transport loads when the handler is made, without holding the caller up (its first request waits for
 * it if need be): the package's entry point, which a handler module importing `ToolError` loads into every
 * server, stdio ones included, does not load what only serving HTTP needs (see index.ts).
 */
export function createHttpHandler(server: Server, options?: HttpOptions): HttpHandler {
  const resolved = resolveHttpOptions(options);
  let transport: HttpTransport | undefined;
  const loading = import("./transport.js").then(({ HttpTransport }) => (transport = new HttpTransport(server, resolved)));
  loading.catch(() => {}); // a failed load rejects the requests and the close that wait for it
  return {
    fetch: async (request) => toResponse(await (transport ?? (await loading)).handle(fromRequest(request))),
    close: async () => (transport ?? (await loading)).close(),
    get stats() {
      return transport?.stats ?? { sessions: 0, streams: 0, exchanges: 0 };
    },
  };
}

function fromRequest(request: Request): HttpInput {
  const url = new URL(request.url);
  return {
    method: request.method.toUpperCase(),
    path: url.pathname,
    // A Request has no Host header of its own: its URL names the host the client asked for.
    header: (name) => request.headers.get(name) ?? (name === "host" ? url.host : undefined),
    text: (limit) => readBody(request, limit),
    onDisconnect: (listener) => {
      const signal = request.signal as AbortSignal | undefined;
      if (signal?.aborted) listener();
      else signal?.addEventListener("abort", listener, { once: true });
    },
  };
}

/**
 * How much of a body over the limit is read and dropped before the 413, so that a client which writes its
 * whole body before reading gets the answer rather than a reset (as in the node:http adapter).
 */
const DISCARD_LIMIT = 16 * 1024 * 1024;

async function readBody(request: Request, limit: number): Promise<string> {
  const length = request.headers.get("content-length");
  if (length !== null && Number(length) > limit + DISCARD_LIMIT) {
    void request.body?.cancel().catch(() => {}); // cut off anyway: not worth reading
    throw new BodyError("payloadTooLarge", "body too large");
  }
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await discardRest(reader, limit + DISCARD_LIMIT - size);
        throw new BodyError("payloadTooLarge", "body too large");
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof BodyError) throw error;
    throw new BodyError("badRequest", "the request body could not be read");
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** Reads and drops the rest of a body, up to `bound` bytes, then lets it go. */
async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, bound: number): Promise<void> {
  let left = bound;
  while (left >= 0) {
    const { done, value } = await reader.read();
    if (done) return;
    left -= value.byteLength;
  }
  void reader.cancel().catch(() => {});
}

function toResponse(output: HttpOutput): Response {
  const stream = output.stream;
  if (!stream) return new Response(output.body ?? null, { status: output.status, headers: output.headers });
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const target = {
          write(chunk: string): boolean {
            try {
              controller.enqueue(encoder.encode(chunk));
            } catch {
              stream.cancel(); // the consumer is gone
              return true;
            }
            return (controller.desiredSize ?? 1) > 0;
          },
          end(chunk?: string): void {
            if (chunk !== undefined) target.write(chunk);
            try {
              controller.close();
            } catch {
              // already closed or cancelled
            }
          },
        };
        stream.attach(target);
      },
      pull() {
        stream.drained();
      },
      cancel() {
        stream.cancel();
      },
    },
    { highWaterMark: 16 },
  );
  return new Response(body, { status: output.status, headers: output.headers });
}
