/**
 * Expiry follows the injected clock: a `requestState` past `requestStateTtlMs` (server option `clock`) and
 * a bearer token past its `expiresAt` (`bearerAuth` option `clock`), with no waiting.
 */
import { describe, expect, it } from "vitest";
import { AuthError, bearerAuth } from "../../packages/runtime/src/index.js";
import { registry } from "./fixtures/primitives.mjs";
import { Harness } from "./helpers/core.js";

describe("the injected clock", () => {
  it("expires a requestState once the server's clock passes its ttl", async () => {
    let now = 1_000_000;
    const h = new Harness({ registry, clock: () => now, requestStateTtlMs: 60_000 });
    const meta = { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } };
    const first = await h.result("prompts/get", { name: "ask" }, meta);
    expect(first).toMatchObject({ resultType: "input_required" });
    const retry = { name: "ask", inputResponses: { topic: { action: "accept", content: { topic: "cheese" } } }, requestState: first.requestState };
    now += 59_000;
    expect(await h.result("prompts/get", retry, meta)).toMatchObject({ resultType: "complete" });
    now += 2_000;
    expect(await h.error("prompts/get", retry, meta)).toMatchObject({ code: -32602, message: expect.stringContaining("requestState expired") });
  });

  it("refuses a bearer token once bearerAuth's clock passes its expiresAt", async () => {
    let now = 1_000_000;
    const authenticate = bearerAuth(() => ({ subject: "alice", scopes: [], expiresAt: 1_060 }), { clock: () => now });
    const request = { method: "POST", path: "/mcp", header: (name: string) => (name === "authorization" ? "Bearer abc" : undefined) };
    expect(await authenticate(request)).toMatchObject({ subject: "alice" });
    now = 1_060_000;
    await expect(authenticate(request)).rejects.toThrow(AuthError);
    await expect(authenticate(request)).rejects.toThrow("Token expired");
  });
});
