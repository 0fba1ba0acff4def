// Handler for tool test_simple_text: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestSimpleTextHandler } from "../generated/handlers.gen.js";

const handler: TestSimpleTextHandler = async () => "This is a simple text response for testing.";

export default handler;
