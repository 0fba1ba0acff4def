// Handler of the fixture tool noisy (test/runtime/fixture-schemas/core/schemas/tools/noisy.json).
import { type ToolHandler } from "@mcpgen/runtime";

const handler: ToolHandler<object> = async () => {
  console.log("noise from console.log");
  console.info("noise from console.info");
  console.debug("noise from console.debug");
  return "quiet stdout";
};

export default handler;
