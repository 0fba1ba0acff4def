/**
 * The tool-call runtime (tool-calls.ts) loads with a server's first `tools/call` or `tasks/*` request: a
 * load that fails answers that request with -32603, says why on stderr, and leaves the next request to load
 * it again.
 */
import { expect, it, vi } from "vitest";

it("answers -32603 while the tool-call runtime cannot load, and serves calls once it can", async () => {
  let broken = true;
  vi.doMock("../../packages/runtime/src/tool-calls.js", async (importOriginal) => {
    if (broken) throw new Error("the disk is gone");
    return importOriginal();
  });
  const { Harness } = await import("./helpers/core.js");
  const logged = vi.spyOn(console, "error").mockImplementation(() => {});
  try {
    const h = new Harness();
    expect(await h.error("tools/call", { name: "echo", arguments: { text: "hi" } })).toEqual({ code: -32603, message: "Internal error" });
    expect(String(logged.mock.calls[0]?.[0])).toContain("could not load the tool-call runtime");
    broken = false;
    expect(Harness.text(await h.call("echo", { text: "hi" }))).toContain("hi");
  } finally {
    logged.mockRestore();
    vi.doUnmock("../../packages/runtime/src/tool-calls.js");
  }
});
