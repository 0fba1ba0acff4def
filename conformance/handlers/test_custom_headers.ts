// Handler for tool test_custom_headers: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestCustomHeadersHandler } from "../generated/handlers.gen.js";

const handler: TestCustomHeadersHandler = async ({ region, query }) => `region=${region}${query === undefined ? "" : `, query=${query}`}`;

export default handler;
