// Handler for prompt test_prompt_with_embedded_resource: the fixture the official MCP conformance suite expects (see conformance/README.md).
import { embedded, text } from "@mcpgen/runtime";
import type { TestPromptWithEmbeddedResourcePromptHandler } from "../../generated/handlers.gen.js";

const handler: TestPromptWithEmbeddedResourcePromptHandler = async ({ resourceUri }) => [
  { role: "user", content: embedded(resourceUri, "Embedded resource content for testing.", { mimeType: "text/plain" }) },
  { role: "user", content: text("Please process the embedded resource above.") },
];

export default handler;
