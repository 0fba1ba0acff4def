// Handler of the fixture tool structured_sum (test/runtime/fixture-schemas/core/schemas/tools/structured_sum.json).
import { structured, text, type ToolHandler } from "@mcpgen/runtime";

const handler: ToolHandler<{ a: number; b: number; mode?: "own" | "invalid" | "lookalike" }, { sum: number }> = async ({ a, b, mode = "own" }) => {
  if (mode === "invalid") return structured({ sum: `${a + b}` }, "the sum, as text") as unknown as { sum: number };
  if (mode === "lookalike") return { sum: a + b, structuredContent: "not a wrapper", content: [{ type: "text", text: "not a wrapper either" }] } as { sum: number };
  return structured({ sum: a + b }, [text(`${a} + ${b} = ${a + b}`), text("Computed exactly.", { audience: ["user"] })]);
};

export default handler;
