// Handler for resource watched_resource: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { WatchedResourceResourceHandler } from "../../generated/handlers.gen.js";

const handler: WatchedResourceResourceHandler = async () => "Watched resource content.";

export default handler;
