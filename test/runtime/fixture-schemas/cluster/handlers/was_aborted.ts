// Handler of the fixture tool was_aborted.
import type { ToolHandler } from "@mcpgen/runtime";
import { aborted } from "./gates.js";

const handler: ToolHandler<{ label: string }> = async ({ label }) => String(aborted.has(label));

export default handler;
