// Fixture handler: answers with the arguments it got, as [name, value] pairs.
import type { ToolHandler } from "@mcpgen/runtime";

const handler: ToolHandler<{ "toString": string }> = async (args) => `got ${JSON.stringify(Object.entries(args))}`;

export default handler;
