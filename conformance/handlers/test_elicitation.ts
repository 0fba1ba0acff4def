// Handler for tool test_elicitation: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestElicitationHandler } from "../generated/handlers.gen.js";

const handler: TestElicitationHandler = async ({ message }, ctx) => {
  const answer = await ctx.elicit({
    message,
    requestedSchema: {
      type: "object",
      properties: {
        username: { type: "string", description: "User's response" },
        email: { type: "string", description: "User's email address" },
      },
      required: ["username", "email"],
    },
  });
  return `User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
};

export default handler;
