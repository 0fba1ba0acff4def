// Handler of the fixture tool echo (test/runtime/fixture-schemas/core/schemas/tools/echo.json).
import { type ToolHandler } from "@mcpgen/runtime";

const handler: ToolHandler<{ text: string; mode?: "plain" | "upper"; times?: number }> = async ({ text, mode, times = 1 }) =>
  (mode === "upper" ? text.toUpperCase() : text).repeat(times);

export default handler;
