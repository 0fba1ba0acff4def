// Handler of the fixture tool blocks (test/runtime/fixture-schemas/core/schemas/tools/blocks.json).
import { type ToolHandler } from "@mcpgen/runtime";

const handler: ToolHandler<object> = async () => [
  { type: "text", text: "a red pixel" },
  { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
];

export default handler;
