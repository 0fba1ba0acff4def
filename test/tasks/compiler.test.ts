/** `execution.taskSupport`: checked at build time, carried into the registry's wire metadata as declared. */
import { describe, expect, it } from "vitest";
import { buildFiles, server, wireTools } from "../compiler/helpers.js";

const obj = { type: "object", properties: {} };

describe("execution.taskSupport in a tool file", () => {
  it("reaches the registry's tools/list entry as declared, and is absent when not declared", async () => {
    const { dir, diagnostics } = await buildFiles(
      server({ long: { inputSchema: obj, execution: { taskSupport: "required" } }, maybe: { inputSchema: obj, execution: { taskSupport: "optional" } }, short: { inputSchema: obj } }),
    );
    expect(diagnostics).toBeUndefined();
    const tools = await wireTools(dir);
    expect(tools.long?.execution).toEqual({ taskSupport: "required" });
    expect(tools.maybe?.execution).toEqual({ taskSupport: "optional" });
    expect(tools.short).not.toHaveProperty("execution");
  });
});
