// Handler of the fixture tool release.
import type { ToolHandler } from "@mcpgen/runtime";
import { gates } from "./gates.js";

const handler: ToolHandler<{ label: string }> = async ({ label }) => {
  const open = gates.get(label);
  gates.delete(label);
  open?.();
  return String(open !== undefined);
};

export default handler;
