// Fixture handler: answers with the arguments it got, as [name, value] pairs.
import type { CompletionHandler, PromptHandler } from "@mcpgen/runtime";

type Arguments = Partial<Record<"constructor" | "toString" | "__proto__" | "valueOf" | "hasOwnProperty", string>>;

const handler: PromptHandler<Arguments> = async (args) => `got ${JSON.stringify(Object.entries(args))}`;

export default handler;

export const complete: { toString: CompletionHandler<Arguments> } = {
  toString: async (value) => [`${value}!`],
};
