// Handler for tool test_audio_content: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestAudioContentHandler } from "../generated/handlers.gen.js";

const handler: TestAudioContentHandler = async () => [{ type: "audio", data: "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==", mimeType: "audio/wav" }];

export default handler;
