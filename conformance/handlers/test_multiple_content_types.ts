// Handler for tool test_multiple_content_types: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestMultipleContentTypesHandler } from "../generated/handlers.gen.js";

const handler: TestMultipleContentTypesHandler = async () => [
  { type: "text", text: "Multiple content types test:" },
  { type: "image", data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==", mimeType: "image/png" },
  { type: "resource", resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: JSON.stringify({ test: "data", value: 123 }) } },
];

export default handler;
