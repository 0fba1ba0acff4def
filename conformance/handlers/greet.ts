// Handler for tool greet: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { GreetHandler } from "../generated/handlers.gen.js";

const handler: GreetHandler = async ({ name }) => `Hello, ${name}!`;

export default handler;
