// Handler for prompt test_simple_prompt: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestSimplePromptPromptHandler } from "../../generated/handlers.gen.js";

const handler: TestSimplePromptPromptHandler = async () => "This is a simple prompt for testing.";

export default handler;
