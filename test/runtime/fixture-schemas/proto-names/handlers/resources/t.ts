// Fixture handler: answers with the arguments it got, as [name, value] pairs.
import type { CompletionHandler, ResourceTemplateHandler } from "@mcpgen/runtime";

type Variables = Record<"toString" | "valueOf" | "constructor", string>;

const handler: ResourceTemplateHandler<Variables> = async (variables) => `got ${JSON.stringify(Object.entries(variables))}`;

export default handler;

export const complete: { toString: CompletionHandler<Variables> } = {
  toString: async (value) => [`${value}!`],
};
