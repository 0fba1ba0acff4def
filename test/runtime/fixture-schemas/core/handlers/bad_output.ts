// Handler of the fixture tool bad_output (test/runtime/fixture-schemas/core/schemas/tools/bad_output.json).
import { type ToolHandler } from "@mcpgen/runtime";

// Breaks its own outputSchema on purpose (the cast hides it from the type checker, not from the runtime).
const handler: ToolHandler<object, { sum: number }> = async () => ({ sum: "three" }) as unknown as { sum: number };

export default handler;
