// Handler for tool test_image_content: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestImageContentHandler } from "../generated/handlers.gen.js";

const handler: TestImageContentHandler = async () => [{ type: "image", data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==", mimeType: "image/png" }];

export default handler;
