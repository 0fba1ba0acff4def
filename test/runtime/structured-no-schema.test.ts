/**
 * `structured(value, content)` from a tool without an outputSchema: nothing to validate the value against,
 * so it is sent as it is when it is a JSON object (what structuredContent may be), and refused as an
 * internal error otherwise.
 */
import { describe, expect, it } from "vitest";
import { structured, type Registry } from "../../packages/runtime/src/index.js";
import { registry } from "./helpers/fixtures.js";
import { Harness } from "./helpers/core.js";

/** The fixture's `echo` tool (no outputSchema) with a handler returning `value`. */
function returning(value: unknown): Registry {
  const echo = registry.tools.find((tool) => tool.name === "echo") as Registry["tools"][number];
  expect((typeof echo.wire === "string" ? (JSON.parse(echo.wire) as Record<string, unknown>) : echo.wire).outputSchema).toBeUndefined();
  return { ...registry, tools: [{ ...echo, handler: async () => ({ default: async () => value }) }] };
}

describe("structured() without an outputSchema", () => {
  it("sends an object as structuredContent next to the handler's content, in both eras", async () => {
    const h = new Harness({ registry: returning(structured({ sum: 5 }, "2 + 3 = 5")) });
    const want = { content: [{ type: "text", text: "2 + 3 = 5" }], structuredContent: { sum: 5 } };
    expect(await h.call("echo", { text: "x" })).toMatchObject(want);
    await h.initialize();
    expect(await h.call("echo", { text: "x" })).toEqual(want);
    expect(h.errors).toEqual([]);
  });

  it.each([
    ["an array", [1, 2]],
    ["a string", "five"],
    ["null", null],
  ])("refuses %s as structuredContent with an internal error the server logs", async (_name, value) => {
    const h = new Harness({ registry: returning(structured(value, "summary")) });
    await h.initialize();
    const result = await h.call("echo", { text: "x" });
    expect(result).not.toHaveProperty("structuredContent");
    expect(result).toEqual({ content: [{ type: "text", text: 'Tool "echo" failed with an internal error (TypeError); the details were logged on the server.' }], isError: true });
    expect(String(h.errors[0])).toMatch(/structuredContent must be a JSON object/);
  });
});
