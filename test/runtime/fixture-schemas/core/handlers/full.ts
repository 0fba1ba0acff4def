// Handler of the fixture tool full (test/runtime/fixture-schemas/core/schemas/tools/full.json).
import { type ToolHandler } from "@mcpgen/runtime";

const handler: ToolHandler<object> = async () => ({
  content: [{ type: "text", text: "quota exceeded, try tomorrow" }],
  isError: true,
  _meta: { "com.example/quota": 0 },
});

export default handler;
