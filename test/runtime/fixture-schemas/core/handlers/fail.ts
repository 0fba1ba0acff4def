// Handler of the fixture tool fail (test/runtime/fixture-schemas/core/schemas/tools/fail.json).
import { ToolError, type ToolHandler } from "@mcpgen/runtime";

const handler: ToolHandler<object> = async () => {
  throw new ToolError('City "Atlantis" not found; pass a real city name such as "Paris".');
};

export default handler;
