// Handler for tool test_embedded_resource: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestEmbeddedResourceHandler } from "../generated/handlers.gen.js";

const handler: TestEmbeddedResourceHandler = async () => [
  { type: "resource", resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." } },
];

export default handler;
