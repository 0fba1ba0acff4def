// Handler for resource template template_data: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TemplateDataResourceHandler } from "../../generated/handlers.gen.js";

const handler: TemplateDataResourceHandler = async ({ id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` });

export default handler;
