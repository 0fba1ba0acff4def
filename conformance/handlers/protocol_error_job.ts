// Handler for tool protocol_error_job: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { ProtocolErrorJobHandler } from "../generated/handlers.gen.js";

const handler: ProtocolErrorJobHandler = async () => {
  await new Promise((resolve) => setTimeout(resolve, 200));
  throw new Error("the job crashed");
};

export default handler;
