// Handler for tool test_elicitation_sep1034_defaults: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestElicitationSep1034DefaultsHandler } from "../generated/handlers.gen.js";

const handler: TestElicitationSep1034DefaultsHandler = async (_input, ctx) => {
  const answer = await ctx.elicit({
    message: "Please review your details (every field has a default)",
    requestedSchema: {
      type: "object",
      properties: {
        name: { type: "string", default: "John Doe" },
        age: { type: "integer", default: 30 },
        score: { type: "number", default: 95.5 },
        status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
        verified: { type: "boolean", default: true },
      },
    },
  });
  return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
};

export default handler;
