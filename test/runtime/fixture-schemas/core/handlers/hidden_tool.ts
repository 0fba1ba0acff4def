// Handler of the fixture tool hidden_tool (test/runtime/fixture-schemas/core/schemas/tools/hidden_tool.json).
import { type ToolHandler } from "@mcpgen/runtime";

const handler: ToolHandler<object> = async () => "you found me";

export default handler;
