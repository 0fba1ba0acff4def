// Handler of the fixture tool ask (test/runtime/fixture-schemas/core/schemas/tools/ask.json).
import { type ToolHandler } from "@mcpgen/runtime";

type Answer = { action: string; content?: Record<string, unknown> };
const name = { message: "What is your name?", requestedSchema: { type: "object" as const, properties: { name: { type: "string" as const } }, required: ["name"] } };
const question = { messages: [{ role: "user" as const, content: { type: "text" as const, text: "What is the capital of France?" } }], maxTokens: 20 };
const textOf = (result: { content: unknown }): string => (result.content as { text?: string }).text ?? "";

const handler: ToolHandler<{ what?: "elicit" | "sample" | "roots" | "rounds" }> = async ({ what = "elicit" }, ctx) => {
  if (what === "elicit") {
    const answer: Answer = await ctx.elicit(name, { key: "user_name" });
    return answer.action === "accept" ? `Hello, ${String(answer.content?.name)}!` : `No name (${answer.action})`;
  }
  if (what === "sample") return `The model said: ${textOf(await ctx.sample(question))}`;
  if (what === "roots") return `Roots: ${(await ctx.listRoots()).roots.map((root) => root.uri).join(", ")}`;
  // two asks at once, then a second round
  const [who, capital] = await Promise.all([ctx.elicit(name, { key: "user_name" }), ctx.sample(question, { key: "capital" })]);
  const colour: Answer = await ctx.elicit({ message: "Favourite colour?", requestedSchema: { type: "object", properties: { colour: { type: "string" } } } }, { key: "colour" });
  return `${String((who as Answer).content?.name)} / ${textOf(capital)} / ${String(colour.content?.colour)}`;
};

export default handler;
