// Handler for prompt test_prompt_with_image: the fixture the official MCP conformance suite expects (see conformance/README.md).
import { image, text } from "@mcpgen/runtime";
import type { TestPromptWithImagePromptHandler } from "../../generated/handlers.gen.js";

/** A 1x1 red PNG. */
const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));

const handler: TestPromptWithImagePromptHandler = async () => [
  { role: "user", content: image(PNG, "image/png") },
  { role: "user", content: text("Please analyze the image above.") },
];

export default handler;
