// Handler of the fixture tool crash (test/runtime/fixture-schemas/core/schemas/tools/crash.json).
import { type ToolHandler } from "@mcpgen/runtime";

const handler: ToolHandler<object> = async () => {
  throw new Error("connect ECONNREFUSED postgres://admin:hunter2@10.0.0.5");
};

export default handler;
