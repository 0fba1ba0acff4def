// Handler for prompt test_prompt_with_arguments: the fixture the official MCP conformance suite expects (see conformance/README.md).
import type { TestPromptWithArgumentsPromptHandler } from "../../generated/handlers.gen.js";

const handler: TestPromptWithArgumentsPromptHandler = async ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`;

export default handler;
