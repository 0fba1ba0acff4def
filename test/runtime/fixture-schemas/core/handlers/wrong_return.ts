// Handler of the fixture tool wrong_return (test/runtime/fixture-schemas/core/schemas/tools/wrong_return.json).
import { type ToolHandler } from "@mcpgen/runtime";

// Breaks the handler contract on purpose (a number is no tool result).
const handler: ToolHandler<object> = async () => 42 as unknown as string;

export default handler;
